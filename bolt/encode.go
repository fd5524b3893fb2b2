package bolt

import (
	"encoding/json"
	"strconv"
	"time"

	"frameindex/state"
)

// The two records every charge writes, a ledger entry and its
// organisation's balance, encoded by hand: encoding/json's reflection was
// 7 µs of a charged data call's CPU and most of its garbage. The bytes are
// exactly json.Marshal's (FuzzRecordEncoding), so that a record reads the
// same whichever wrote it; anything outside the plain cases (a string
// needing an escape, a time not in UTC) is handed to encoding/json.

// encodeLedgerEntry returns json.Marshal(e).
func encodeLedgerEntry(e state.LedgerEntry) ([]byte, error) {
	b := make([]byte, 0, 160)
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"time":`...)
	b, err := appendJSONTime(b, e.Time)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, e.Kind)
	b = append(b, `,"credits":`...)
	b = strconv.AppendInt(b, e.Credits, 10)
	b = append(b, `,"balance":`...)
	b = strconv.AppendInt(b, e.Balance, 10)
	for _, f := range [...]struct{ name, v string }{{`,"note":`, e.Note}, {`,"keyId":`, e.KeyID}, {`,"dataset":`, e.Dataset}, {`,"requestId":`, e.RequestID}} {
		if f.v != "" {
			b = append(b, f.name...)
			b = appendJSONString(b, f.v)
		}
	}
	return append(b, '}'), nil
}

// encodeOrg returns json.Marshal(orgRecord(o)).
func encodeOrg(o state.Org) ([]byte, error) {
	b := make([]byte, 0, 96+len(o.Name))
	b = append(b, `{"id":`...)
	b = appendJSONString(b, o.ID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, o.Name)
	b = append(b, `,"plan":`...)
	b = appendJSONString(b, o.Plan)
	b = append(b, `,"created":`...)
	b, err := appendJSONTime(b, o.Created)
	if err != nil {
		return nil, err
	}
	if o.Credits != 0 {
		b = append(b, `,"credits":`...)
		b = strconv.AppendInt(b, o.Credits, 10)
	}
	return append(b, '}'), nil
}

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONTime appends t as encoding/json writes it (Time.MarshalJSON).
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); t.Location() == time.UTC && y >= 0 && y <= 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"'), nil
	}
	q, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}
