package ogg

// crcTable is the table of the Ogg CRC-32: polynomial 0x04c11db7, not
// reflected, initial value 0, no final xor.
var crcTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// Checksum returns the Ogg CRC-32 of a page whose checksum field is zero.
func Checksum(page []byte) uint32 { return update(0, page) }

// update continues the Ogg CRC-32 crc over b.
func update(crc uint32, b []byte) uint32 {
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>24)^c]
	}
	return crc
}
