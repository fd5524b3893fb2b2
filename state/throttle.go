package state

import (
	"net/netip"
	"time"
)

// The sign-in throttle's rule (the in-memory throttle of package console
// and pgstate's keep it alike): each account and each client address may
// fail a few times freely; beyond that every further failure makes it
// wait twice as long as the last, from SignInWaitBase up to SignInWaitMax,
// without even checking the password. Failures are forgotten after
// SignInForget without one, and an account's count is cleared by a
// success. An attempt is counted as a failure before its password is
// checked, in the same locked step as the check of the wait, and a right
// password takes the count back: parallel attempts cannot all pass the
// check before any failure is recorded.
const (
	SignInAccountFree = 5
	SignInAddressFree = 20
	SignInWaitBase    = 30 * time.Second
	SignInWaitMax     = 15 * time.Minute
	SignInForget      = time.Hour
)

// SignInWait is how long an account or address that has failed n times
// in a row, with free failures allowed, must wait: 0 below free.
func SignInWait(n, free int) time.Duration {
	if n < free {
		return 0
	}
	d := SignInWaitBase
	for i := free; i < n && d < SignInWaitMax; i++ {
		d *= 2
	}
	return min(d, SignInWaitMax)
}

// ThrottleAccountKey is the throttle's key of an account name.
func ThrottleAccountKey(acct string) string { return "a:" + acct }

// ThrottleAddrKey keys a client address: IPv4 whole, IPv6 by its /64 (one
// host's or one household's share of the address space: a single client
// can change the low 64 bits at will).
func ThrottleAddrKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return "i:" + addr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return "i:" + p.String()
	}
	return "i:" + ip.String()
}

// SignInThrottle is a sign-in throttle shared by every node (pgstate's):
// the counts of one account and one address are the same whichever node
// an attempt reaches.
type SignInThrottle interface {
	// BeginSignIn admits an attempt of the account from the address at
	// now: it returns how long they must still wait (the attempt is then
	// refused and not counted), or 0 after counting the attempt as a
	// failure of both, in one step.
	BeginSignIn(acct, addr string, now time.Time) (time.Duration, error)
	// SucceedSignIn follows a right password: the account's failures are
	// cleared and the address's count loses the attempt BeginSignIn
	// counted.
	SucceedSignIn(acct, addr string) error
	// CancelSignIn takes back the attempt BeginSignIn counted when no
	// password was found wrong.
	CancelSignIn(acct, addr string) error
	// PruneSignIns forgets the failures forgotten at now.
	PruneSignIns(now time.Time) error
}
