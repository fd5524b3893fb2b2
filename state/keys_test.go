package state

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// base62Big is a reference base62 encoding (math/big), padded to 43 digits.
func base62Big(b []byte) string {
	n := new(big.Int).SetBytes(b)
	s := ""
	sixtyTwo := big.NewInt(62)
	for i := 0; i < secretDigits; i++ {
		m := new(big.Int)
		n.DivMod(n, sixtyTwo, m)
		s = string(base62Digits[m.Int64()]) + s
	}
	return s
}

func TestEncodeBase62(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11)) // fixed seed
	inputs := map[string][32]byte{"zero": {}, "max": {}, "one": {}}
	m := inputs["max"]
	for i := range m {
		m[i] = 0xff
	}
	inputs["max"] = m
	one := [32]byte{}
	one[31] = 1
	inputs["one"] = one
	for i := 0; i < 50; i++ {
		var b [32]byte
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		inputs[fmt.Sprintf("random %d", i)] = b
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			got := make([]byte, secretDigits)
			encodeBase62(got, in)
			if want := base62Big(in[:]); string(got) != want {
				t.Errorf("encodeBase62 = %s, want %s", got, want)
			}
		})
	}
	got := make([]byte, secretDigits)
	encodeBase62(got, one)
	if want := strings.Repeat("0", 42) + "1"; string(got) != want {
		t.Errorf("encodeBase62(1) = %s, want %s", got, want)
	}
}
