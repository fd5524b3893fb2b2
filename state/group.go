package state

// RunGroups is the loop of a group commit, as both stores run it for
// charges: it waits for one item of queue, gathers every item already
// waiting (up to max), hands the group to apply, which commits it once
// and answers each item, and starts again; while apply syncs one group
// the next one gathers. It returns when quit is closed, closing stopped.
// apply must not keep the slice it is given.
func RunGroups[T any](queue <-chan T, max int, quit <-chan struct{}, stopped chan<- struct{}, apply func([]T)) {
	defer close(stopped)
	group := make([]T, 0, max)
	for {
		select {
		case <-quit:
			return
		case q := <-queue:
			group = append(group[:0], q)
		}
	gather:
		for len(group) < max {
			select {
			case q := <-queue:
				group = append(group, q)
			default:
				break gather
			}
		}
		apply(group)
		clear(group)
	}
}
