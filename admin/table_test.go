package admin

import (
	"context"
	"encoding/json"
	"fmt"

	"frameindex/state"
)

// call runs op's method from JSON arguments, decoded as the socket's
// table decodes them, and returns its typed result: the table-driven
// tests name operations as the socket does and check what the method
// returns.
func (op Operation[A, R]) call(ctx context.Context, o *Ops, args json.RawMessage) (any, error) {
	r, err := op.decodeRun(ctx, o, args)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// run runs the operation named name from the socket's table with JSON
// arguments and returns the method's result.
func (o *Ops) run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	op, ok := socketOps[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown operation %q", state.ErrInvalid, name)
	}
	return op.(interface {
		call(context.Context, *Ops, json.RawMessage) (any, error)
	}).call(ctx, o, args)
}

// stateOnly is the StateOnly of the operation named name.
func stateOnly(name string) bool {
	return socketOps[name].(interface{ stateOnly() bool }).stateOnly()
}

func (op Operation[A, R]) stateOnly() bool { return op.StateOnly }
