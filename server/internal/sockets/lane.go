package sockets

// Lane runs a session's queued requests one at a time, in the order
// they were put, beside its contexts; those still waiting when the
// session ends are dropped (at shutdown, the one under way finishes).
type Lane struct {
	s    *Session
	jobs chan func()
}

// Lane returns a lane of the session on which up to size requests may
// wait behind the one under way.
func (s *Session) Lane(size int) *Lane {
	l := &Lane{s: s, jobs: make(chan func(), size)}
	s.lanes.Go(l.run)
	return l
}

// Put queues f, unless size requests wait already.
func (l *Lane) Put(f func()) bool {
	l.s.queued.Add(1)
	select {
	case l.jobs <- f:
		return true
	default:
		l.s.queued.Add(-1)
		return false
	}
}

func (l *Lane) run() {
	for {
		select {
		case f := <-l.jobs:
			select {
			case <-l.s.stop: // the session has ended: drop it
			default:
				f()
			}
			l.s.queued.Add(-1)
			select {
			case l.s.touch <- struct{}{}:
			default: // a touch waits already
			}
		case <-l.s.stop:
			return
		}
	}
}
