package server

import (
	"encoding/json"
	"math"
)

// jfloat is a float64 that writes NaN and infinities as null.
type jfloat float64

// MarshalJSON writes f, or null when it is not finite.
func (f jfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}
