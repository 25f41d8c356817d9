package flaclpc

import "math/bits"

// rice finds the partition order and Rice parameters that code s.Residual
// in the fewest bits, and sets s.Bits to head bits (subframe header,
// warm-up samples, coefficients) plus the residual coding. n is the block
// size. s.Params is kept in the analyzer's buffer ri (as the residual is),
// so the best candidate's survives the next one's.
func (a *Analyzer) rice(s Subframe, head, n, ri int) Subframe {
	order := s.Order
	// The highest partition order that divides the block and leaves the
	// first partition room for the warm-up samples.
	maxP := 0
	for p := 1; p <= a.opt.MaxPartitionOrder; p++ {
		if n%(1<<p) != 0 || n>>p <= order {
			break
		}
		maxP = p
	}
	// Sums of folded residuals over the finest partitions, then merged.
	parts := 1 << maxP
	if cap(a.sums) < 2*parts {
		a.sums = make([]uint64, 2*parts)
	}
	sums := a.sums[:parts]
	size := n >> maxP
	r := s.Residual
	start := 0
	for i := range parts {
		end := (i+1)*size - order
		var sum uint64
		for _, v := range r[start:end] {
			sum += uint64(fold(v))
		}
		sums[i] = sum
		start = end
	}
	bestBits, bestP := -1, 0
	// Scratch of the analyzer: arrays of 1<<MaxPartitionOrder would be
	// 256 KiB each, too big for the stack, and allocated on every call.
	if cap(a.params[ri]) < parts {
		a.params[ri] = make([]int, parts)
	}
	if cap(a.trial) < parts {
		a.trial = make([]int, parts)
	}
	bestParams, params := a.params[ri][:parts], a.trial[:parts]
	for p := maxP; p >= 0; p-- {
		np := 1 << p
		bitsP := 2 + 4 // coding method, partition order
		param5 := false
		for i := range np {
			cnt := n >> p
			if i == 0 {
				cnt -= order
			}
			k, b := riceParam(sums[i], cnt)
			params[i] = k
			if k > 14 {
				param5 = true
			}
			bitsP += b
		}
		if param5 {
			bitsP += np * 5
		} else {
			bitsP += np * 4
		}
		if bestBits < 0 || bitsP < bestBits {
			bestBits, bestP = bitsP, p
			copy(bestParams[:np], params[:np])
		}
		// Merge pairs of partitions for the next coarser order.
		for i := range np / 2 {
			sums[i] = sums[2*i] + sums[2*i+1]
		}
	}
	s.PartitionOrder = bestP
	s.Params = bestParams[:1<<bestP]
	s.Bits = head + bestBits
	return s
}

// riceParam returns the Rice parameter that best codes cnt values whose
// folded sum is sum, and the estimated bits: cnt·(k+1) + sum>>k.
func riceParam(sum uint64, cnt int) (int, int) {
	if cnt == 0 {
		return 0, 0
	}
	// The mean folded value m is best coded with k ≈ log2(m).
	k := 0
	if mean := sum / uint64(cnt); mean > 0 {
		k = min(bits.Len64(mean)-1, maxRiceParam)
	}
	best, bestBits := k, cnt*(k+1)+int(sum>>k)
	for _, kk := range []int{k - 1, k + 1} {
		if kk < 0 || kk > maxRiceParam {
			continue
		}
		if b := cnt*(kk+1) + int(sum>>kk); b < bestBits {
			best, bestBits = kk, b
		}
	}
	return best, bestBits
}

// fold maps a signed residual to the unsigned value Rice codes:
// 0, -1, 1, -2, 2 … → 0, 1, 2, 3, 4 …
func fold(v int32) uint32 { return uint32(v<<1) ^ uint32(v>>31) }
