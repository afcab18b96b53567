# The numbers of run and qrels lines, included by ``_runreader.pyx``.
#
# * scores, by the grammar ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?``, correctly
#   rounded: an exact fast path (at most 19 significant digits, mantissa <= 2**53, power of
#   ten <= 1e22), else Lemire's 128-bit multiplication by a power of five (``_decimal``),
#   else C's ``strtod``; ``inf``, ``nan`` and overflow named (``_special``);
# * a plain line's short decimal scores by one division (``_short_decimal``: the exact
#   path's operations, so the same bits);
# * labels, integers ``[+-]?[0-9]{1,18}`` (``_label``).


cdef double POW10[23]
for _i in range(23):
    POW10[_i] = float(10 ** _i)

# 128-bit approximations of 5**q, q in [-342, 308], the top bit set (high word, low word):
# truncated for q >= 0; for q < 0, 2**b // 5**-q + 1 for a b that puts the top bit at 127
DEF Q_MIN = -342
DEF Q_MAX = 308
cdef uint64_t P5[2 * (Q_MAX - Q_MIN + 1)]


def _power5(q):
    if q >= 0:
        v = 5 ** q
        return v << (128 - v.bit_length()) if v.bit_length() < 128 else \
            v >> (v.bit_length() - 128)
    d = 5 ** -q
    z = (d - 1).bit_length()  # 2**(z - 1) < d <= 2**z
    b = z + 127 if q >= -27 else 2 * z + 128
    v = (1 << b) // d + 1
    while v >= 1 << 128:
        v >>= 1
    return v


for _i in range(Q_MIN, Q_MAX + 1):
    _v = _power5(_i)
    P5[2 * (_i - Q_MIN)] = _v >> 64
    P5[2 * (_i - Q_MIN) + 1] = _v & 0xFFFFFFFFFFFFFFFF


cdef inline bint _decimal(uint64_t w, int64_t q, bint neg, double* out) noexcept nogil:
    """``w * 10**q`` correctly rounded to a double (``0 < w < 10**19``) by Lemire's 128-bit
    multiplication by a power of five; False where the subnormal or overflow ranges need
    strtod."""
    cdef uint64_t hi, lo, hi2, lo2, m
    cdef int lz, upper, shift
    cdef int64_t p2, idx
    if q < Q_MIN or q > Q_MAX:
        return False
    lz = rr_clz(w)
    w <<= lz
    idx = 2 * (q - Q_MIN)
    hi = rr_mul(w, P5[idx], &lo)
    if (hi & 0x1FF) == 0x1FF:
        hi2 = rr_mul(w, P5[idx + 1], &lo2)
        lo += hi2
        if hi2 > lo:
            hi += 1
    upper = <int>(hi >> 63)
    shift = upper + 9
    m = hi >> shift
    p2 = ((217706 * q) >> 16) + 63 + upper - lz + 1023
    if p2 <= 0:
        return False
    if lo <= 1 and -4 <= q <= 23 and (m & 3) == 1 and (m << shift) == hi:
        m &= ~(<uint64_t>1)  # exactly halfway: round to even
    m += m & 1
    m >>= 1
    if m >= (<uint64_t>2 << 52):
        m = <uint64_t>1 << 52
        p2 += 1
    m &= ~(<uint64_t>1 << 52)
    if p2 >= 0x7FF:
        return False
    out[0] = rr_bits(m | (<uint64_t>p2 << 52) | ((<uint64_t>neg) << 63))
    return True


cdef inline bint _word_is(const uint8_t* b, int64_t p, int64_t q, const char* word,
                          int64_t n) noexcept nogil:
    """Whether ``b[p:q]`` is ``word`` (lower case ASCII, length ``n``) in any case."""
    cdef int64_t i
    if q - p != n:
        return False
    for i in range(n):
        if (b[p + i] | 0x20) != <uint8_t>word[i]:
            return False
    return True


cdef int _special(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    """B_INFINITE for ``[+-]?(inf|infinity)``, B_NAN for ``[+-]?nan`` (any case), else
    B_NUMBER."""
    cdef int64_t q = _token(b, p, end)
    if p < q and (b[p] == 43 or b[p] == 45):
        p += 1
    if _word_is(b, p, q, "inf", 3) or _word_is(b, p, q, "infinity", 8):
        return B_INFINITE
    if _word_is(b, p, q, "nan", 3):
        return B_NAN
    return B_NUMBER


cdef inline int64_t _digits(const uint8_t* b, int64_t q, int64_t end, bint fraction,
                            uint64_t* mant, int* nd, int* digits, int64_t* exp10,
                            bint* inexact) noexcept nogil:
    """Read the digits at ``q`` (of the integer part, or of the fraction) into a mantissa of
    at most 19 significant digits and its power of ten; return the position after them."""
    cdef uint8_t c
    while q < end and 48 <= b[q] <= 57:
        c = b[q] - 48
        digits[0] += 1
        if nd[0] < 19:
            if mant[0] or c:
                mant[0] = mant[0] * 10 + c
                nd[0] += 1
            if fraction:
                exp10[0] -= 1
        else:
            if not fraction:
                exp10[0] += 1
            inexact[0] = True
        q += 1
    return q


cdef inline int64_t _score(const uint8_t* b, int64_t p, int64_t end, double* out,
                           int* bad) noexcept nogil:
    """Parse the score at ``p``; return the position after it, or set ``bad``."""
    cdef int64_t q = p, e = 0, exp10 = 0
    cdef uint64_t mant = 0
    cdef int nd = 0, digits = 0, esign = 1
    cdef bint neg = False, inexact = False
    cdef uint8_t c
    cdef double v
    cdef char small[64]
    cdef char* tmp
    if q < end and (b[q] == 43 or b[q] == 45):  # + -
        neg = b[q] == 45
        q += 1
    q = _digits(b, q, end, False, &mant, &nd, &digits, &exp10, &inexact)
    if q < end and b[q] == 46:  # .
        q = _digits(b, q + 1, end, True, &mant, &nd, &digits, &exp10, &inexact)
    if digits == 0:
        bad[0] = _special(b, p, end)
        return q
    if q < end and (b[q] == 101 or b[q] == 69):  # e E
        q += 1
        if q < end and (b[q] == 43 or b[q] == 45):
            if b[q] == 45:
                esign = -1
            q += 1
        if not (q < end and 48 <= b[q] <= 57):
            bad[0] = B_NUMBER
            return q
        while q < end and 48 <= b[q] <= 57:
            if e < 100000:
                e = e * 10 + (b[q] - 48)
            q += 1
        exp10 += esign * e
    if q < end and CLS[b[q]] == 0:  # anything else in the token
        bad[0] = B_NUMBER
        return q
    if mant == 0:
        v = 0.0
    elif not inexact and mant <= (<uint64_t>1 << 53) and -22 <= exp10 <= 22:
        v = <double>mant  # exact, then one correctly rounded operation
        if exp10 >= 0:
            v = v * POW10[exp10]
        else:
            v = v / POW10[-exp10]
    elif not inexact and _decimal(mant, exp10, neg, out):
        return q
    else:
        if q - p < 64:
            tmp = &small[0]
        else:
            tmp = <char*>malloc(q - p + 1)
        if tmp == NULL:
            bad[0] = B_MEMORY
            return q
        memcpy(tmp, b + p, q - p)
        tmp[q - p] = 0
        v = strtod(tmp, NULL)
        if tmp != &small[0]:
            free(tmp)
        if isinf(v):
            bad[0] = B_INFINITE
            return q
        out[0] = v  # strtod read the sign
        return q
    out[0] = -v if neg else v
    return q


cdef inline bint _short_decimal(const uint8_t* b, int64_t p, int64_t end,
                                double* out) noexcept nogil:
    """Read the score ``b[p:end]`` (a whole field) when it is ``-?digits[.digits]`` or
    ``-?.digits`` with at most 15 digits in all: the mantissa and ten to the number of
    fraction digits are exact doubles, and one division rounds correctly, as in
    :func:`_score`'s exact path (the same operations, so the same bits); False for any other
    form (``_score`` reads it)."""
    cdef bint neg = False
    cdef int64_t dot = -1, i
    cdef uint64_t mant = 0
    cdef int nd = 0
    cdef uint8_t c
    cdef double v
    if p < end and b[p] == 45:
        neg = True
        p += 1
    if end - p > 16:
        return False
    for i in range(p, end):
        c = b[i] - 48
        if c < 10:
            mant = mant * 10 + c
            nd += 1
        elif b[i] == 46 and dot < 0:
            dot = i
        else:
            return False
    if nd == 0 or nd > 15:
        return False
    v = <double>mant
    if dot >= 0 and end - dot - 1 > 0:
        v = v / POW10[end - dot - 1]
    out[0] = -v if neg else v
    return True


cdef inline int64_t _label(const uint8_t* b, int64_t p, int64_t end, int64_t* out,
                           int* bad) noexcept nogil:
    """Parse a label ``[+-]?[0-9]{1,18}`` at ``p``; return the position after it."""
    cdef int64_t q = p, v = 0
    cdef int digits = 0
    cdef bint neg = False
    if q < end and (b[q] == 43 or b[q] == 45):
        neg = b[q] == 45
        q += 1
    while q < end and 48 <= b[q] <= 57:
        v = v * 10 + (b[q] - 48)
        digits += 1
        q += 1
        if digits > 18:
            break
    if digits == 0 or digits > 18 or (q < end and CLS[b[q]] == 0):
        bad[0] = B_NUMBER
        return q
    out[0] = -v if neg else v
    return q
