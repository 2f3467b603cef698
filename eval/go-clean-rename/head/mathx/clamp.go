package mathx

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func Percent(v int) int { return clamp(v, 0, 100) }
