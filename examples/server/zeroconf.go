package main

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"slices"

	"github.com/hashicorp/mdns"
	"github.com/miekg/dns"
	"golang.org/x/net/ipv4"
)

// mdnsGroup is mDNS's IPv4 multicast group and port.
var mdnsGroup = &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: 5353}

// announceWyoming answers mDNS (Zeroconf) queries for _wyoming._tcp.local.,
// as Home Assistant discovers Wyoming services, on the interfaces the
// listener at addr is reachable on, each with its own address: the one
// holding addr's address, or every multicast interface when it listens on
// all of them. A listener on loopback is announced nowhere (nothing
// another host can reach), with a warning.
func announceWyoming(addr *net.TCPAddr, logger *slog.Logger) (stop func(), err error) {
	if addr.IP.IsLoopback() {
		logger.Warn("-wyoming-zeroconf: the Wyoming listener is on loopback only: Home Assistant on another host cannot reach it, "+
			"so it is not announced; listen on an address of the network Home Assistant is on", "addr", addr.String())
		return func() {}, nil
	}
	ifs, err := systemInterfaces()
	if err != nil {
		return nil, err
	}
	targets := announceOn(addr.IP, ifs)
	if len(targets) == 0 {
		return nil, errors.New("no multicast interface is up with the listener's address")
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "voxkit"
	}
	zones := map[int]mdns.Zone{}
	for _, t := range targets {
		svc, err := mdns.NewMDNSService("voxkit", "_wyoming._tcp", "", host+".local.", addr.Port, t.ips, []string{"voxkit"})
		if err != nil {
			return nil, err
		}
		zones[t.Index] = svc
	}
	return respondMDNS(targets, zones)
}

// iface is a network interface that is up and does multicast, with its
// addresses.
type iface struct {
	net.Interface
	ips []net.IP
}

// systemInterfaces lists this machine's interfaces that are up and do
// multicast, loopback left out.
func systemInterfaces() ([]iface, error) {
	all, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var out []iface
	for _, i := range all {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagMulticast == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := i.Addrs()
		if err != nil {
			return nil, err
		}
		it := iface{Interface: i}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				it.ips = append(it.ips, n.IP)
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// announceOn returns the interfaces of ifs on which a listener on ip is
// reachable, each with the addresses to announce there: every interface
// and its IPv4 addresses for an unspecified ip, else the interface that
// holds ip, with ip.
func announceOn(ip net.IP, ifs []iface) []iface {
	var out []iface
	for _, i := range ifs {
		switch {
		case ip == nil || ip.IsUnspecified():
			var v4 []net.IP
			for _, a := range i.ips {
				if a.To4() != nil {
					v4 = append(v4, a)
				}
			}
			if len(v4) > 0 {
				out = append(out, iface{Interface: i.Interface, ips: v4})
			}
		case slices.ContainsFunc(i.ips, ip.Equal):
			out = append(out, iface{Interface: i.Interface, ips: []net.IP{ip}})
		}
	}
	return out
}

// respondMDNS answers the mDNS queries that arrive on the interfaces of
// targets, each from its zone, until stop. A query that arrives on any
// other interface gets no answer.
func respondMDNS(targets []iface, zones map[int]mdns.Zone) (stop func(), err error) {
	conn, err := net.ListenMulticastUDP("udp4", &targets[0].Interface, mdnsGroup)
	if err != nil {
		return nil, err
	}
	pc := ipv4.NewPacketConn(conn)
	for _, t := range targets[1:] {
		if err := pc.JoinGroup(&t.Interface, mdnsGroup); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := pc.SetControlMessage(ipv4.FlagInterface, true); err != nil {
		conn.Close()
		return nil, err
	}
	pc.SetMulticastTTL(255)
	go func() {
		buf := make([]byte, 9000)
		for {
			n, cm, src, err := pc.ReadFrom(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil || cm == nil || zones[cm.IfIndex] == nil {
				continue
			}
			if answer := mdnsAnswer(buf[:n], zones[cm.IfIndex]); answer != nil {
				pc.WriteTo(answer, &ipv4.ControlMessage{IfIndex: cm.IfIndex}, src)
			}
		}
	}()
	return func() { conn.Close() }, nil
}

// mdnsAnswer is the packed answer of zone to the mDNS query packet, nil
// when it has none (or the packet is not a query).
func mdnsAnswer(packet []byte, zone mdns.Zone) []byte {
	var q dns.Msg
	if q.Unpack(packet) != nil || q.Response || q.Opcode != dns.OpcodeQuery || q.Rcode != 0 {
		return nil
	}
	var records []dns.RR
	for _, question := range q.Question {
		records = append(records, zone.Records(question)...)
	}
	if len(records) == 0 {
		return nil
	}
	// RFC 6762, section 18: a response, authoritative; the query's id
	// for an answer sent to the querier's own address.
	answer := &dns.Msg{MsgHdr: dns.MsgHdr{Id: q.Id, Response: true, Authoritative: true}, Compress: true, Answer: records}
	b, err := answer.Pack()
	if err != nil {
		return nil
	}
	return b
}
