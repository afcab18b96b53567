# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""Prototype (issue 12): a compiled reader of TREC run lines ``qid Q0 docno rank score tag``.

Not part of the package; built and measured by ``bench_readers.py`` (see README.md).

One pass over a bytes buffer (an mmap or one read of the file), the GIL released:

* topic ids dictionary-encoded in order of first appearance (the previous line's topic is
  compared first: topics come in blocks);
* document ids hashed while parsing into a per-file dictionary (open addressing), codes in
  order of first appearance;
* scores parsed as float64 with the grammar skrank accepts (``[+-]?(digits[.digits]|.digits)
  ([eE][+-]?digits)?``: no ``inf``/``nan``, no ``1_5``, no non-ASCII digits), correctly
  rounded: an exact fast path when the value has at most 19 significant digits that fit in
  53 bits and a power of ten up to 1e22, else Lemire's 128-bit multiplication by a power of
  five (at most 19 digits), else C's ``strtod`` (correctly rounded in glibc: more digits,
  subnormals, overflow); overflow (``1e400``) refused;
* the rules of skrank's reader: LF, CRLF and lone CR end lines; space, tab, VT and FF
  separate fields (runs of them count once, leading ones are skipped); blank lines and lines
  whose first non-blank byte is ``#`` are skipped; a UTF-8 BOM at the start is dropped;
  fields after the tag are ignored; topic and document ids must be UTF-8;
* the reading stops at the first bad line and reports its number and why.

``docs="hash"`` keeps each row's 64-bit document hash and the id's offset and length
instead of a dictionary. ``read_run(buffer, threads=2)`` parses the two halves of the buffer (cut after a line end)
in two threads and merges the second half's dictionaries into the first's.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc, strtod
from libc.string cimport memcpy

import threading

import numpy as np

cdef extern from "math.h" nogil:
    bint isinf(double x)

cdef extern from "sys/mman.h" nogil:
    int madvise(void* addr, size_t length, int advice)
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int MADV_HUGEPAGE, PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS
    void* MAP_FAILED

cdef extern from *:
    """
    #define RR_PREFETCH(p) __builtin_prefetch((p))
    static inline uint64_t rr_mul(uint64_t a, uint64_t b, uint64_t* lo) {
        unsigned __int128 r = (unsigned __int128)a * b;
        *lo = (uint64_t)r;
        return (uint64_t)(r >> 64);
    }
    static inline int rr_clz(uint64_t x) { return __builtin_clzll(x); }
    static inline double rr_bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
    """
    void RR_PREFETCH(const void* p) noexcept nogil
    uint64_t rr_mul(uint64_t a, uint64_t b, uint64_t* lo) noexcept nogil
    int rr_clz(uint64_t x) noexcept nogil
    double rr_bits(uint64_t b) noexcept nogil

# documents looked up in batches: their slots are prefetched while the lines are parsed
DEF BATCH = 32

# byte classes: 0 part of a field, 1 blank between fields, 2 line end
cdef uint8_t CLS[256]
for _i in range(256):
    CLS[_i] = 0
CLS[32] = 1
CLS[9] = 1
CLS[11] = 1
CLS[12] = 1
CLS[10] = 2
CLS[13] = 2

cdef double POW10[23]
for _i in range(23):
    POW10[_i] = float(10 ** _i)

# 128-bit approximations of 5**q, q in [-342, 308], the top bit set (high word, low word):
# truncated for q >= 0; for q < 0, 2**b // 5**-q + 1 for a b that puts the top bit at 127
# (kept to 128 bits)
DEF Q_MIN = -342
DEF Q_MAX = 308
cdef uint64_t P5[2 * (Q_MAX - Q_MIN + 1)]


def _power5(q):
    if q >= 0:
        v = 5 ** q
        v = v << (128 - v.bit_length()) if v.bit_length() < 128 else v >> (v.bit_length() - 128)
        return v
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
    """``w * 10**q`` correctly rounded to a double, for ``w`` of at most 19 digits (w > 0),
    after Lemire's 128-bit multiplication by a power of five; False where overflow or
    underflow ranges need strtod."""
    cdef uint64_t hi, lo, hi2, lo2, m
    cdef int lz, upper, shift
    cdef int64_t p2
    if q < Q_MIN or q > Q_MAX:
        return False
    lz = rr_clz(w)
    w <<= lz
    cdef int64_t idx = 2 * (q - Q_MIN)
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
        return False  # subnormal: rare, strtod
    if lo <= 1 and -4 <= q <= 23 and (m & 3) == 1 and (m << shift) == hi:
        m &= ~(<uint64_t>1)  # exactly halfway: round to even
    m += m & 1
    m >>= 1
    if m >= (<uint64_t>2 << 52):
        m = <uint64_t>1 << 52
        p2 += 1
    m &= ~(<uint64_t>1 << 52)
    if p2 >= 0x7FF:
        return False  # overflow: strtod says inf
    out[0] = rr_bits(m | (<uint64_t>p2 << 52) | ((<uint64_t>neg) << 63))
    return True

BAD_KINDS = {
    0: None,
    1: "fewer than 6 fields",
    2: "the score is not a number",
    3: "the score is not finite (overflow)",
    4: "an id is not UTF-8",
    5: "out of memory",
}

cdef uint64_t K1 = 0x9E3779B97F4A7C15
cdef uint64_t K2 = 0xFF51AFD7ED558CCD
cdef uint64_t K3 = 0xC4CEB9FE1A85EC53
cdef uint64_t SEED = 0x243F6A8885A308D3


# --- hashing ----------------------------------------------------------------------------

cdef inline uint64_t _word(const uint8_t* p, int64_t n, const uint8_t* limit) noexcept nogil:
    """Little-endian word of the ``n`` (1..8) bytes at ``p``, zero-padded."""
    cdef uint64_t w = 0
    cdef int64_t i
    if p + 8 <= limit:
        memcpy(&w, p, 8)
        if n < 8:
            w &= (<uint64_t>1 << (8 * n)) - 1
        return w
    for i in range(n):
        w |= (<uint64_t>p[i]) << (8 * i)
    return w


cdef inline uint64_t _hash(const uint8_t* p, int64_t n, const uint8_t* limit) noexcept nogil:
    cdef uint64_t h = SEED ^ <uint64_t>n
    while n > 0:
        h = (h ^ _word(p, 8 if n > 8 else n, limit)) * K1
        h ^= h >> 29
        p += 8
        n -= 8
    h ^= h >> 33
    h *= K2
    h ^= h >> 33
    h *= K3
    h ^= h >> 33
    return h


cdef inline bint _same(const uint8_t* a, const uint8_t* b, int64_t n) noexcept nogil:
    """Whether ``a[:n] == b[:n]`` (ids are short: no call to memcmp)."""
    cdef uint64_t x, y
    while n >= 8:
        memcpy(&x, a, 8)
        memcpy(&y, b, 8)
        if x != y:
            return False
        a += 8
        b += 8
        n -= 8
    while n > 0:
        if a[0] != b[0]:
            return False
        a += 1
        b += 1
        n -= 1
    return True


# --- dictionary of byte strings (offsets into the buffer) -------------------------------

cdef struct Dict:
    uint64_t* slots     # (hash >> 32) << 32 | (code + 1); 0: empty
    uint64_t mask
    int64_t n
    int64_t cap
    int64_t* start
    int32_t* length
    uint64_t* hash


cdef uint64_t* _slots(int64_t size) noexcept nogil:
    """A zeroed table of ``size`` slots: big ones mapped from the kernel (already zero) and
    on huge pages where the kernel allows (fewer TLB misses: the lookups are random)."""
    cdef void* mem
    cdef size_t nbytes = size * sizeof(uint64_t)
    if nbytes < (2 << 20):
        return <uint64_t*>calloc(size, sizeof(uint64_t))
    mem = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if mem == MAP_FAILED:
        return NULL
    madvise(mem, nbytes, MADV_HUGEPAGE)
    return <uint64_t*>mem


cdef void _free_slots(uint64_t* slots, int64_t size) noexcept nogil:
    if slots == NULL:
        return
    if size * sizeof(uint64_t) < (2 << 20):
        free(slots)
    else:
        munmap(slots, size * sizeof(uint64_t))


cdef int _dict_init(Dict* d, int64_t expect) noexcept nogil:
    cdef int64_t size = 1024
    while size < 2 * expect:
        size *= 2
    d.slots = _slots(size)
    d.mask = size - 1
    d.n = 0
    d.cap = expect if expect > 16 else 16
    d.start = <int64_t*>malloc(d.cap * sizeof(int64_t))
    d.length = <int32_t*>malloc(d.cap * sizeof(int32_t))
    d.hash = <uint64_t*>malloc(d.cap * sizeof(uint64_t))
    if d.slots == NULL or d.start == NULL or d.length == NULL or d.hash == NULL:
        return -1
    return 0


cdef void _dict_free(Dict* d) noexcept nogil:
    _free_slots(d.slots, d.mask + 1)
    free(d.start)
    free(d.length)
    free(d.hash)
    d.slots = NULL
    d.start = NULL
    d.length = NULL
    d.hash = NULL


cdef int _dict_grow(Dict* d) noexcept nogil:
    cdef int64_t size = 2 * (d.mask + 1)
    cdef uint64_t* slots = _slots(size)
    if slots == NULL:
        return -1
    cdef int64_t i
    cdef uint64_t mask = size - 1, j, h
    for i in range(d.n):
        if i + 16 < d.n:
            RR_PREFETCH(&slots[d.hash[i + 16] & mask])
        h = d.hash[i]
        j = h & mask
        while slots[j] != 0:
            j = (j + 1) & mask
        slots[j] = ((h >> 32) << 32) | <uint64_t>(i + 1)
    _free_slots(d.slots, d.mask + 1)
    d.slots = slots
    d.mask = mask
    return 0


cdef inline int32_t _dict_code(Dict* d, const uint8_t* base, int64_t start, int32_t length,
                               uint64_t h) noexcept nogil:
    """Code of the string ``base[start:start + length]`` (of hash ``h``), added if new;
    -1 when out of memory."""
    cdef uint64_t j = h & d.mask
    cdef uint64_t tag = (h >> 32) << 32
    cdef uint64_t s
    cdef int64_t c
    while True:
        s = d.slots[j]
        if s == 0:
            break
        if (s >> 32) == (h >> 32):
            c = <int64_t>(<uint32_t>s) - 1
            if d.length[c] == length and _same(base + d.start[c], base + start, length):
                return <int32_t>c
        j = (j + 1) & d.mask
    c = d.n
    if c == d.cap:
        d.cap *= 2
        d.start = <int64_t*>realloc(d.start, d.cap * sizeof(int64_t))
        d.length = <int32_t*>realloc(d.length, d.cap * sizeof(int32_t))
        d.hash = <uint64_t*>realloc(d.hash, d.cap * sizeof(uint64_t))
        if d.start == NULL or d.length == NULL or d.hash == NULL:
            return -1
    d.start[c] = start
    d.length[c] = length
    d.hash[c] = h
    d.n = c + 1
    d.slots[j] = tag | <uint64_t>(c + 1)
    if 2 * d.n > <int64_t>d.mask:
        if _dict_grow(d) < 0:
            return -1
    return <int32_t>c


# --- fields -----------------------------------------------------------------------------

cdef inline int64_t _token(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    while p < end and CLS[b[p]] == 0:
        p += 1
    return p


cdef inline int64_t _token_or(const uint8_t* b, int64_t p, int64_t end,
                              uint8_t* acc) noexcept nogil:
    cdef uint8_t a = acc[0]
    while p < end and CLS[b[p]] == 0:
        a |= b[p]
        p += 1
    acc[0] = a
    return p


cdef inline int64_t _blanks(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    while p < end and CLS[b[p]] == 1:
        p += 1
    return p


cdef bint _utf8(const uint8_t* s, int64_t n) noexcept nogil:
    """Whether ``s[:n]`` is valid UTF-8 (shortest forms, no surrogates, up to U+10FFFF)."""
    cdef int64_t i = 0, k, need
    cdef uint32_t c, cp, lo
    while i < n:
        c = s[i]
        if c < 0x80:
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            need, cp, lo = 1, c & 0x1F, 0x80
        elif 0xE0 <= c <= 0xEF:
            need, cp, lo = 2, c & 0x0F, 0x800
        elif 0xF0 <= c <= 0xF4:
            need, cp, lo = 3, c & 0x07, 0x10000
        else:
            return False
        if i + need >= n:
            return False
        for k in range(1, need + 1):
            if (s[i + k] & 0xC0) != 0x80:
                return False
            cp = (cp << 6) | (s[i + k] & 0x3F)
        if cp < lo or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            return False
        i += need + 1
    return True


cdef inline int64_t _score(const uint8_t* b, int64_t p, int64_t end, double* out,
                           int* bad) noexcept nogil:
    """Parse the score at ``p``; return the position after it. ``bad``: 2 when the token is
    not a number of the grammar, 3 when it overflows."""
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
    while q < end and 48 <= b[q] <= 57:
        c = b[q] - 48
        digits += 1
        if nd < 19:
            if mant or c:
                mant = mant * 10 + c
                nd += 1
        else:
            exp10 += 1
            inexact = True
        q += 1
    if q < end and b[q] == 46:  # .
        q += 1
        while q < end and 48 <= b[q] <= 57:
            c = b[q] - 48
            digits += 1
            if nd < 19:
                if mant or c:
                    mant = mant * 10 + c
                    nd += 1
                exp10 -= 1
            else:
                inexact = True
            q += 1
    if digits == 0:
        bad[0] = 2
        return q
    if q < end and (b[q] == 101 or b[q] == 69):  # e E
        q += 1
        if q < end and (b[q] == 43 or b[q] == 45):
            if b[q] == 45:
                esign = -1
            q += 1
        if not (q < end and 48 <= b[q] <= 57):
            bad[0] = 2
            return q
        while q < end and 48 <= b[q] <= 57:
            if e < 100000:
                e = e * 10 + (b[q] - 48)
            q += 1
        exp10 += esign * e
    if q < end and CLS[b[q]] == 0:  # anything else in the token
        bad[0] = 2
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
            bad[0] = 5
            return q
        memcpy(tmp, b + p, q - p)
        tmp[q - p] = 0
        v = strtod(tmp, NULL)
        if tmp != &small[0]:
            free(tmp)
        if isinf(v):
            bad[0] = 3
            return q
        out[0] = v  # strtod read the sign
        return q
    out[0] = -v if neg else v
    return q


# --- one part of the buffer -------------------------------------------------------------

cdef struct Part:
    const uint8_t* base
    int64_t begin
    int64_t end
    int32_t* qcode
    int32_t* dcode
    uint64_t* dhash     # instead of dcode when hash_only, with where each id is:
    int64_t* dstart
    int32_t* dlen
    bint hash_only
    double* score
    int64_t n_rows
    int64_t n_lines
    int64_t bad_line
    int bad_kind
    int64_t tag_start
    int64_t tag_end
    Dict topics
    Dict docs


cdef inline bint _flush(Part* P, int64_t row, int k, int64_t* bs, int32_t* bl,
                        uint64_t* bh) noexcept nogil:
    """Look up the ``k`` documents of a batch (rows ``row - k`` ..), in order.

    Their slots were prefetched while the lines were parsed; two passes of hints first fetch
    the entries and then the bytes of the documents met before (a hit compares bytes at a
    random place of the buffer), so that the misses of the batch overlap."""
    cdef int i
    cdef int32_t code
    cdef uint64_t s
    cdef int32_t cand[BATCH]
    cdef Dict* d = &P.docs
    for i in range(k):
        s = d.slots[bh[i] & d.mask]
        cand[i] = <int32_t>(<uint32_t>s) - 1 if s and (s >> 32) == (bh[i] >> 32) else -1
        if cand[i] >= 0:
            RR_PREFETCH(&d.start[cand[i]])
            RR_PREFETCH(&d.length[cand[i]])
    for i in range(k):
        if cand[i] >= 0:
            RR_PREFETCH(P.base + d.start[cand[i]])
    for i in range(k):
        code = _dict_code(&P.docs, P.base, bs[i], bl[i], bh[i])
        if code < 0:
            return False
        P.dcode[row - k + i] = code
    return True


cdef void _parse(Part* P) noexcept nogil:
    cdef const uint8_t* b = P.base
    cdef int64_t p = P.begin, end = P.end, line = 0, row = 0
    cdef int64_t q0, q1, d0, d1, t0 = 0, t1 = 0, last_q0 = -1, last_q1 = -1
    cdef int32_t last_code = -1, code
    cdef uint8_t acc
    cdef int bad = 0, k = 0
    cdef double v = 0.0
    cdef uint64_t h
    cdef int64_t bs[BATCH]
    cdef int32_t bl[BATCH]
    cdef uint64_t bh[BATCH]
    while p < end:
        line += 1
        p = _blanks(b, p, end)
        if p >= end:
            break
        if CLS[b[p]] == 2 or b[p] == 35:  # blank line, or a comment (#)
            while p < end and CLS[b[p]] != 2:
                p += 1
            if p < end and b[p] == 13 and p + 1 < end and b[p + 1] == 10:
                p += 1
            p += 1
            continue
        acc = 0
        q0 = p
        p = _token_or(b, p, end, &acc)                   # qid
        q1 = p
        p = _blanks(b, p, end)
        if p >= end or CLS[b[p]] == 2:
            bad = 1
            break
        p = _token(b, p, end)                            # Q0
        p = _blanks(b, p, end)
        if p >= end or CLS[b[p]] == 2:
            bad = 1
            break
        d0 = p
        p = _token_or(b, p, end, &acc)                   # docno
        d1 = p
        p = _blanks(b, p, end)
        if p >= end or CLS[b[p]] == 2:
            bad = 1
            break
        p = _token(b, p, end)                            # rank
        p = _blanks(b, p, end)
        if p >= end or CLS[b[p]] == 2:
            bad = 1
            break
        p = _score(b, p, end, &v, &bad)                  # score
        if bad:
            p = _blanks(b, _token(b, p, end), end)
            if bad == 2 and (p >= end or CLS[b[p]] == 2):
                bad = 1  # a line of five fields: the count is what is wrong
            break
        p = _blanks(b, p, end)
        if p >= end or CLS[b[p]] == 2:
            bad = 1
            break
        t0 = p
        p = _token(b, p, end)                            # tag
        t1 = p
        while p < end and CLS[b[p]] != 2:                # fields after the tag
            p += 1
        if p < end:
            if b[p] == 13 and p + 1 < end and b[p + 1] == 10:
                p += 1
            p += 1
        if acc & 0x80 and not (_utf8(b + q0, q1 - q0) and _utf8(b + d0, d1 - d0)):
            bad = 4
            break
        if (q1 - q0 == last_q1 - last_q0
                and _same(b + q0, b + last_q0, q1 - q0)):
            code = last_code
        else:
            code = _dict_code(&P.topics, b, q0, <int32_t>(q1 - q0),
                              _hash(b + q0, q1 - q0, b + end))
            if code < 0:
                bad = 5
                break
            last_code, last_q0, last_q1 = code, q0, q1
        P.qcode[row] = code
        h = _hash(b + d0, d1 - d0, b + end)
        if P.hash_only:
            P.dhash[row] = h
            P.dstart[row] = d0
            P.dlen[row] = <int32_t>(d1 - d0)
            P.score[row] = v
            row += 1
            continue
        RR_PREFETCH(&P.docs.slots[h & P.docs.mask])
        bs[k], bl[k], bh[k] = d0, <int32_t>(d1 - d0), h
        k += 1
        P.score[row] = v
        row += 1
        if k == BATCH:
            if not _flush(P, row, k, bs, bl, bh):
                bad = 5
                break
            k = 0
    if bad != 5 and k and not _flush(P, row, k, bs, bl, bh):
        bad = 5
    P.n_rows = row
    P.n_lines = line
    P.bad_kind = bad
    P.bad_line = line if bad else 0
    P.tag_start, P.tag_end = t0, t1


cdef class _Part:
    cdef Part P
    cdef object arrays

    def __dealloc__(self):
        _dict_free(&self.P.topics)
        _dict_free(&self.P.docs)


cdef _Part _new_part(const uint8_t[::1] buf, int64_t begin, int64_t end, int64_t cap,
                     bint hash_only):
    cdef _Part part = _Part()
    qcode = np.empty(cap, dtype=np.int32)
    dcode = np.empty(cap, dtype=np.uint64 if hash_only else np.int32)
    score = np.empty(cap, dtype=np.float64)
    part.arrays = (qcode, dcode, score)
    cdef int32_t[::1] qv = qcode
    cdef double[::1] sv = score
    cdef int32_t[::1] dv
    cdef uint64_t[::1] hv
    cdef int64_t[::1] stv
    cdef int32_t[::1] lv
    if hash_only:
        dstart = np.empty(cap, dtype=np.int64)
        dlen = np.empty(cap, dtype=np.int32)
        part.arrays += (dstart, dlen)
        hv, stv, lv = dcode, dstart, dlen
        part.P.dhash, part.P.dstart, part.P.dlen = &hv[0], &stv[0], &lv[0]
    else:
        dv = dcode
        part.P.dcode = &dv[0]
    part.P.hash_only = hash_only
    part.P.base = &buf[0]
    part.P.begin, part.P.end = begin, end
    part.P.qcode, part.P.score = &qv[0], &sv[0]
    part.P.n_rows = part.P.n_lines = part.P.bad_line = 0
    part.P.bad_kind = 0
    part.P.tag_start = part.P.tag_end = 0
    cdef int64_t lines = (end - begin) // 12 + 2  # a line holds at least 11 bytes
    if (_dict_init(&part.P.topics, 1024) < 0
            or _dict_init(&part.P.docs, lines // 8 if lines // 8 > 1024 else 1024) < 0):
        raise MemoryError
    return part


def _run_part(_Part part):
    with nogil:
        _parse(&part.P)


cdef int _merge(Part* A, Part* B) noexcept nogil:
    """Append B's rows to A's, B's codes mapped to A's dictionaries (extended)."""
    cdef int32_t* qmap = <int32_t*>malloc((B.topics.n + 1) * sizeof(int32_t))
    cdef int32_t* dmap = <int32_t*>malloc((B.docs.n + 1) * sizeof(int32_t))
    cdef int64_t i, n = A.n_rows
    cdef int rc = 0
    if qmap == NULL or dmap == NULL:
        rc = -1
    else:
        for i in range(B.topics.n):
            qmap[i] = _dict_code(&A.topics, A.base, B.topics.start[i], B.topics.length[i],
                                 B.topics.hash[i])
        for i in range(B.docs.n):
            if i + 16 < B.docs.n:
                RR_PREFETCH(&A.docs.slots[B.docs.hash[i + 16] & A.docs.mask])
            dmap[i] = _dict_code(&A.docs, A.base, B.docs.start[i], B.docs.length[i],
                                 B.docs.hash[i])
        for i in range(B.n_rows):
            A.qcode[n + i] = qmap[B.qcode[i]]
        if A.hash_only:
            memcpy(A.dhash + n, B.dhash, B.n_rows * sizeof(uint64_t))
            memcpy(A.dstart + n, B.dstart, B.n_rows * sizeof(int64_t))
            memcpy(A.dlen + n, B.dlen, B.n_rows * sizeof(int32_t))
        else:
            for i in range(B.n_rows):
                A.dcode[n + i] = dmap[B.dcode[i]]
        memcpy(A.score + n, B.score, B.n_rows * sizeof(double))
        A.n_rows = n + B.n_rows
    free(qmap)
    free(dmap)
    return rc


cdef tuple _entries(Dict* d):
    start = np.empty(d.n, dtype=np.int64)
    length = np.empty(d.n, dtype=np.int32)
    if d.n:
        memcpy(<void*><size_t>start.ctypes.data, d.start, d.n * sizeof(int64_t))
        memcpy(<void*><size_t>length.ctypes.data, d.length, d.n * sizeof(int32_t))
    return start, length


class RunColumns:
    """The reader's result: codes, scores, dictionaries (offsets into ``buffer``), status."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def strings(self, which):
        """The dictionary ``which`` ("topics" or "docs") as a list of bytes (slow; checks)."""
        start, length = getattr(self, which)
        buf = self.buffer
        return [bytes(buf[s: s + n]) for s, n in zip(start.tolist(), length.tolist())]


def read_run(buffer, int threads=1, str docs="dict"):
    """Parse a TREC run held in ``buffer`` (bytes, mmap: anything with a byte buffer).

    Returns a :class:`RunColumns`: ``qid``, ``doc`` (int32 codes, first appearance order),
    ``score`` (float64), ``topics`` and ``docs`` (``(start, length)`` of each dictionary
    entry in ``buffer``), ``tag`` (bytes: the last data line's tag), ``n_lines``,
    ``bad_line`` (0 when every line is good, else the number of the first bad line; the
    arrays then hold the rows before it) and ``bad`` (why, or None).

    ``docs="hash"``: no document dictionary; ``doc`` holds each row's 64-bit hash of its
    document id (what a join with hashed qrels would take), ``doc_start`` and ``doc_len``
    where each id is in ``buffer`` (to check a hash match, to break ties by docno); ``docs``
    is empty.
    """
    cdef bint hash_only = docs == "hash"
    cdef const uint8_t[::1] buf
    cdef int64_t n = len(buffer), begin = 0, mid, cap
    if n == 0:
        buffer = b"\n"
        n = 1
    buf = buffer
    if n >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
        begin = 3
    cap = (n - begin) // 12 + 2
    cdef _Part A, B
    if threads <= 1 or n - begin < (1 << 20):
        A = _new_part(buf, begin, n, cap, hash_only)
        _run_part(A)
    else:
        mid = begin + (n - begin) // 2
        while mid < n and CLS[buf[mid]] != 2:
            mid += 1
        if mid < n and buf[mid] == 13 and mid + 1 < n and buf[mid + 1] == 10:
            mid += 1
        mid = mid + 1 if mid < n else n
        A = _new_part(buf, begin, mid, cap, hash_only)  # room for all the rows: B's are copied in
        B = _new_part(buf, mid, n, (n - mid) // 12 + 2, hash_only)
        other = threading.Thread(target=_run_part, args=(B,))
        other.start()
        _run_part(A)
        other.join()
        if A.P.bad_kind == 0:
            if B.P.bad_kind:
                A.P.bad_kind = B.P.bad_kind
                A.P.bad_line = A.P.n_lines + B.P.bad_line
            if B.P.n_rows:
                A.P.tag_start, A.P.tag_end = B.P.tag_start, B.P.tag_end
            with nogil:
                if _merge(&A.P, &B.P) < 0:
                    A.P.bad_kind = 5
            A.P.n_lines += B.P.n_lines
        B = None
    qcode, dcode, score = A.arrays[:3]
    rows = A.P.n_rows
    extra = {"doc_start": A.arrays[3][:rows], "doc_len": A.arrays[4][:rows]} if hash_only else {}
    return RunColumns(**extra,
        qid=qcode[:rows], doc=dcode[:rows], score=score[:rows],
        topics=_entries(&A.P.topics), docs=_entries(&A.P.docs),
        tag=bytes(buffer[A.P.tag_start: A.P.tag_end]), n_lines=A.P.n_lines,
        bad_line=A.P.bad_line, bad=BAD_KINDS[A.P.bad_kind], buffer=buffer,
    )


def gather(buffer, start, length):
    """Dictionary entries as an Arrow-like (int64 offsets, uint8 data) pair (for checks)."""
    length = np.asarray(length, dtype=np.int64)
    offsets = np.zeros(length.shape[0] + 1, dtype=np.int64)
    np.cumsum(length, out=offsets[1:])
    data = np.empty(int(offsets[len(offsets) - 1]), dtype=np.uint8)
    cdef const uint8_t[::1] buf = buffer
    cdef uint8_t[::1] out = data
    cdef const int64_t[::1] st = np.asarray(start, dtype=np.int64)
    cdef const int64_t[::1] off = offsets
    cdef int64_t i
    if data.shape[0] == 0:
        return offsets, data
    with nogil:
        for i in range(st.shape[0]):
            memcpy(&out[0] + off[i], &buf[0] + st[i], off[i + 1] - off[i])
    return offsets, data
