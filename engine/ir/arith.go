package ir

// Arith applies the operators integers and floats share: + - * min max
// (the built-in min and max treat NaN and -0 as math.Min and math.Max do);
// false for any other.
func Arith[T int64 | float64](op BinOp, a, b T) (T, bool) {
	switch op {
	case Add:
		return a + b, true
	case Sub:
		return a - b, true
	case Mul:
		return a * b, true
	case Min:
		return min(a, b), true
	case Max:
		return max(a, b), true
	}
	return 0, false
}

// IntArith computes a run-time integer operation the device's way: Arith,
// and // and % truncating toward zero (pld-spec ruling 7), as Go's / and %
// do. false for a zero divisor or an operator that is no integer
// arithmetic. The checker folds known values with it and the emulator runs
// with it, so both agree.
func IntArith(op BinOp, a, b int64) (int64, bool) {
	if r, ok := Arith(op, a, b); ok {
		return r, true
	}
	if b != 0 {
		switch op {
		case FloorDiv:
			return a / b, true
		case Mod:
			return a % b, true
		}
	}
	return 0, false
}
