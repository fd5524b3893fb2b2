package admin

// umask does nothing on Windows, which has no creation mask: Listen
// restricts the socket with an access control list instead (see
// socket_windows.go).
func umask(mask int) int { return mask }
