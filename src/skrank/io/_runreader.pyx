# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled reader of TREC runs and qrels, and their join.

One pass over a bytes buffer (an mmap of the file, or a block of it), the GIL released, no
Python per line:

* lines end at LF, CRLF or a lone CR; space, tab, VT and FF separate fields (runs of them
  count once, leading ones are skipped); blank lines and lines whose first non-blank byte is
  ``#`` are skipped; the caller drops a UTF-8 BOM;
* a run line is ``qid Q0 docno rank score tag`` (six fields or more: the ones after the tag
  are ignored); a qrels line ``qid iter docno rel`` (exactly four fields);
* topic ids are dictionary-encoded in order of first appearance (the previous line's topic
  is compared first: topics come in blocks); each document id is kept as its offset and
  its length in the buffer (no per-file dictionary of documents: the join hashes them and
  probes a table of the topic's judgements, comparing the bytes on a hash match; the hash,
  the dictionary and the ids' decoding into NumPy strings are in ``_runids.pxi``);
* scores are float64 by the grammar ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?``
  (no ``1_5``, no non-ASCII digits, no hex), correctly rounded: an exact fast path (at most 19
  significant digits, mantissa <= 2**53, power of ten <= 1e22), else Lemire's 128-bit
  multiplication by a power of five, else C's ``strtod``; infinite (``inf``, ``1e400``) and
  NaN scores are refused. Labels are integers ``[+-]?[0-9]{1,18}`` (both read by
  ``_runnumbers.pxi``);
* topic and document ids must be UTF-8 (checked only when a byte >= 0x80 occurs).

Parsing stops at the first bad line and reports its number, the offset where it starts and
why; the caller writes the message. The join (``_runjoin.pxi``) checks repeated documents,
orders each topic's rows as trec_eval does (score descending, docno descending) and looks
each document up in the qrels.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc, strtod
from libc.string cimport memchr, memcmp, memcpy, memset

import numpy as np

cdef extern from "math.h" nogil:
    bint isinf(double x)
    const double INFINITY

cdef extern from *:
    """
    #if defined(_MSC_VER) && !defined(__clang__)
    #include <intrin.h>
    static inline uint64_t rr_mul(uint64_t a, uint64_t b, uint64_t* lo) {
        *lo = a * b;
        return __umulh(a, b);
    }
    static inline int rr_clz(uint64_t x) {
        unsigned long i;
        _BitScanReverse64(&i, x);
        return 63 - (int)i;
    }
    #else
    static inline uint64_t rr_mul(uint64_t a, uint64_t b, uint64_t* lo) {
        unsigned __int128 r = (unsigned __int128)a * b;
        *lo = (uint64_t)r;
        return (uint64_t)(r >> 64);
    }
    static inline int rr_clz(uint64_t x) { return __builtin_clzll(x); }
    #endif
    static inline double rr_bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
    #if defined(_MSC_VER) && !defined(__clang__)
    static inline int rr_ctz(uint64_t x) {
        unsigned long i;
        _BitScanForward64(&i, x);
        return (int)i;
    }
    #define RR_LITTLE_ENDIAN 1
    static inline uint64_t rr_bswap(uint64_t x) { return _byteswap_uint64(x); }
    #else
    static inline uint64_t rr_bswap(uint64_t x) { return __builtin_bswap64(x); }
    static inline int rr_ctz(uint64_t x) { return __builtin_ctzll(x); }
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define RR_LITTLE_ENDIAN 1
    #else
    #define RR_LITTLE_ENDIAN 0
    #endif
    #endif
    """
    uint64_t rr_mul(uint64_t a, uint64_t b, uint64_t* lo) noexcept nogil
    int rr_clz(uint64_t x) noexcept nogil
    double rr_bits(uint64_t b) noexcept nogil
    int rr_ctz(uint64_t x) noexcept nogil
    uint64_t rr_bswap(uint64_t x) noexcept nogil
    bint RR_LITTLE_ENDIAN

# row numbers of a run's rows grouped by topic: int32 below 2**31 rows (memory), else int64
ctypedef fused index_t:
    int32_t
    int64_t

# why a line is bad (0: it is not)
cdef enum:
    B_FIELDS = 1      # a wrong number of fields
    B_NUMBER = 2      # the score (label) is not a number (an integer) of the grammar
    B_INFINITE = 3    # the score is infinite (inf, 1e400)
    B_UTF8 = 4        # an id is not UTF-8
    B_MEMORY = 5
    B_NAN = 6         # the score is NaN

BAD_FIELDS, BAD_NUMBER, BAD_INFINITE, BAD_UTF8, BAD_NAN = (
    B_FIELDS, B_NUMBER, B_INFINITE, B_UTF8, B_NAN)

# byte classes: 0 part of a field, 1 blank between fields, 2 line end
cdef uint8_t CLS[256]
for _i in range(256):
    CLS[_i] = 0
for _i in (32, 9, 11, 12):
    CLS[_i] = 1
CLS[10] = 2
CLS[13] = 2

include "_runids.pxi"


# --- fields -----------------------------------------------------------------------------

cdef inline int64_t _token_or(const uint8_t* b, int64_t p, int64_t end,
                              uint8_t* acc) noexcept nogil:
    """The end of the field at ``p``; ``acc`` gets the bit 0x80 if one of its bytes has it.

    Eight bytes at a time where they are there (little-endian machines): the first byte
    below 0x21 of a word is found by ``(w - 0x21..21) & ~w & 0x80..80`` (exact for the
    first such byte: a borrow only flags bytes after it), then told by ``CLS`` whether it
    ends the field (blanks and line ends do; other control bytes are part of it)."""
    cdef uint64_t w, t, high = 0
    cdef int k
    if RR_LITTLE_ENDIAN:
        while p + 8 <= end:
            memcpy(&w, b + p, 8)
            t = (w - <uint64_t>0x2121212121212121) & ~w & <uint64_t>0x8080808080808080
            if t == 0:
                high |= w
                p += 8
                continue
            k = rr_ctz(t) >> 3
            if k:
                high |= w & ((<uint64_t>1 << (8 * k)) - 1)
            p += k
            if CLS[b[p]] != 0:
                if high & <uint64_t>0x8080808080808080:
                    acc[0] |= 0x80
                return p
            p += 1  # a control byte inside the field
    while p < end and CLS[b[p]] == 0:
        high |= b[p]
        p += 1
    if high & <uint64_t>0x8080808080808080:
        acc[0] |= 0x80
    return p


cdef inline int64_t _token(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    cdef uint8_t acc = 0
    return _token_or(b, p, end, &acc)


cdef inline int64_t _blanks(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    while p < end and CLS[b[p]] == 1:
        p += 1
    return p


cdef inline int64_t _next(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    """The start of the field after the blanks at ``p``, or -1 at the end of the line."""
    p = _blanks(b, p, end)
    return -1 if p >= end or CLS[b[p]] == 2 else p


cdef inline int64_t _line_end(const uint8_t* b, int64_t p, int64_t end) noexcept nogil:
    """Position after the line end at or after ``p`` (CRLF counts once)."""
    while p < end and CLS[b[p]] != 2:
        p += 1
    if p < end and b[p] == 13 and p + 1 < end and b[p + 1] == 10:
        p += 1
    return p + 1 if p < end else end


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


include "_runnumbers.pxi"


cdef inline uint64_t _low_bytes(uint64_t w) noexcept nogil:
    """The bit 0x80 of each byte of ``w`` below 0x21, exact for every byte: the sum adds
    0x5F to the low seven bits of each byte (no carry leaves a byte), reaching 0x80 from
    0x21 on; the OR with ``w`` drops the bytes from 0x80 on."""
    return ~(((w & <uint64_t>0x7F7F7F7F7F7F7F7F) + <uint64_t>0x5F5F5F5F5F5F5F5F) | w) & \
        <uint64_t>0x8080808080808080


cdef inline int64_t _plain_line(const uint8_t* b, int64_t p, int64_t end,
                                int64_t* sep, int n_sep) noexcept nogil:
    """The line end (LF) of a plain line at ``p``, else -1 (the general parse reads the
    line). Plain: ``n_sep + 1`` fields (six in a run, four in qrels) of ASCII bytes above
    0x20 (the first not ``#``), one space or tab between two, an LF right after the last,
    all of it in whole words before ``end`` (little-endian machines). ``sep[:n_sep]``: the
    blanks' positions.

    Eight bytes at a time: :func:`_low_bytes` flags each blank, line end or control byte;
    the flagged bytes are taken in order (a blank that follows the line start or another
    flagged byte would make an empty field: not plain)."""
    cdef int64_t q = p, n = 0, at, last = p - 1
    cdef uint64_t w, m, high = 0
    cdef int k
    cdef uint8_t c
    if p < end and b[p] == 35:
        return -1
    while q + 8 <= end:
        memcpy(&w, b + q, 8)
        m = _low_bytes(w)
        while m:
            k = rr_ctz(m) >> 3
            at = q + k
            if at == last + 1:
                return -1
            c = b[at]
            if c == 10:
                if k:
                    high |= w & ((<uint64_t>1 << (8 * k)) - 1)
                if n != n_sep or high & <uint64_t>0x8080808080808080:
                    return -1
                return at
            if (c != 32 and c != 9) or n == n_sep:
                return -1
            sep[n] = at
            n += 1
            last = at
            m &= m - 1
        high |= w
        q += 8
    return -1


# --- one pass over a buffer ----------------------------------------------------------------

cdef struct Parse:
    const uint8_t* base
    int64_t begin
    int64_t end
    bint qrels
    bint plain               # run lines of the plain form read by _plain_line
    int32_t* qcode
    int64_t* dstart
    int32_t* dlen
    double* score
    int64_t* rel
    int64_t n_rows
    int64_t n_lines
    int64_t n_plain          # the lines the fast path read (see _plain_line)
    int bad_kind
    int64_t bad_line         # its number (from 1 at ``begin``)
    int64_t bad_at           # where it starts
    int64_t tag_start
    int64_t tag_end
    int64_t run_row          # the last run of rows of one topic: its first row,
    int64_t run_at           # where its first line starts
    int64_t run_line         # and that line's number
    Dict topics


cdef void _parse(Parse* P) noexcept nogil:
    cdef const uint8_t* b = P.base
    cdef int64_t p = P.begin, end = P.end, line = 0, row = 0, ls
    cdef int64_t q0, q1, d0, d1, t0 = 0, t1 = 0, last_q0 = -1, last_q1 = -1
    cdef int32_t last_code = -1, code
    cdef uint8_t acc
    cdef int bad = 0
    cdef double v = 0.0
    cdef int64_t lab = 0
    cdef bint qrels = P.qrels
    cdef bint plain = P.plain and RR_LITTLE_ENDIAN
    cdef int64_t sep[5]
    cdef int64_t nl
    cdef int n_sep = 3 if qrels else 5
    P.run_row = 0
    P.run_at = P.begin
    P.run_line = 1
    while p < end:
        line += 1
        ls = p
        nl = _plain_line(b, p, end, sep, n_sep) if plain else -1
        if nl >= 0:  # a plain line: its fields are where the general parse finds them
            if qrels:
                if _label(b, sep[2] + 1, nl, &lab, &bad) != nl or bad:
                    nl = -1
            elif not _short_decimal(b, sep[3] + 1, sep[4], &v) and \
                    (_score(b, sep[3] + 1, sep[4], &v, &bad) != sep[4] or bad):
                nl = -1
            if nl < 0:
                bad = 0  # the general parse reads the line (and names what is wrong)
        if nl >= 0:
            acc = 0
            P.n_plain += 1
            q0, q1, d0, d1 = p, sep[0], sep[1] + 1, sep[2]
            if not qrels:
                t0, t1 = sep[4] + 1, nl
            p = nl + 1
        else:
            p = _blanks(b, p, end)
            if p >= end:
                break
            if CLS[b[p]] == 2 or b[p] == 35:  # a blank line, or a comment (#)
                p = _line_end(b, p, end)
                continue
            acc = 0
            q0 = p
            q1 = _token_or(b, p, end, &acc)                  # qid
            p = _next(b, q1, end)                            # Q0 / iter
            if p >= 0:
                p = _next(b, _token(b, p, end), end)         # docno
            if p < 0:
                bad = B_FIELDS
                break
            d0 = p
            d1 = _token_or(b, p, end, &acc)
            p = _next(b, d1, end)                            # rel / rank
            if p >= 0 and not qrels:
                p = _next(b, _token(b, p, end), end)         # score
            if p < 0:
                bad = B_FIELDS
                break
            if qrels:
                p = _label(b, p, end, &lab, &bad)
                if not bad and _next(b, p, end) >= 0:
                    bad = B_FIELDS                           # more than four fields
            else:
                p = _score(b, p, end, &v, &bad)
                if not bad:
                    t0 = _next(b, p, end)                    # tag
                    if t0 < 0:
                        bad = B_FIELDS
                    else:
                        p = t1 = _token(b, t0, end)
            if bad:
                if bad != B_FIELDS and bad != B_MEMORY:
                    # a bad value on a line of the wrong length: the count is what is wrong (a
                    # run line of five fields, a qrels line of more than four)
                    if (_next(b, _token(b, p, end), end) < 0) != qrels:
                        bad = B_FIELDS
                t0 = t1 = 0
                break
            p = _line_end(b, p, end)
            if acc & 0x80 and not (_utf8(b + q0, q1 - q0) and _utf8(b + d0, d1 - d0)):
                bad = B_UTF8
                break
        if q1 - q0 == last_q1 - last_q0 and _same(b + q0, b + last_q0, q1 - q0):
            code = last_code
        else:
            code = _dict_code(&P.topics, b, q0, <int32_t>(q1 - q0),
                              _hash(b + q0, q1 - q0, b + end))
            if code < 0:
                bad = B_MEMORY
                break
            last_code, last_q0, last_q1 = code, q0, q1
            P.run_row, P.run_at, P.run_line = row, ls, line
        P.qcode[row] = code
        P.dstart[row] = d0
        P.dlen[row] = <int32_t>(d1 - d0)
        if qrels:
            P.rel[row] = lab
        else:
            P.score[row] = v
        row += 1
    P.n_rows = row
    P.n_lines = line
    P.bad_kind = bad
    P.bad_line = line if bad else 0
    P.bad_at = ls if bad else 0
    P.tag_start, P.tag_end = t0, t1


class Parsed:
    """The rows of a buffer: topic codes, document hashes, offsets and lengths, scores or
    labels, the topic dictionary, and why parsing stopped (``bad`` 0: it did not)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def parse(buffer, int64_t begin, int64_t end, bint qrels, out=None, int64_t row0=0,
          bint plain=True):
    """Parse ``buffer[begin:end]`` (run lines, or qrels lines when ``qrels``).

    Returns a :class:`Parsed`: ``qcode`` (int32, first appearance order), ``dstart``
    (int64) and ``dlen`` (int32: where each document id is in ``buffer``), ``score``
    (float64; runs) or ``rel`` (int64; qrels), ``topics`` (list of bytes), ``tag`` (bytes:
    the last row's tag), ``n_lines``; ``bad`` (0, or ``BAD_*``), ``bad_line`` (counted from
    1 at ``begin``) and ``bad_at`` (where that line starts); ``run_row``, ``run_at``,
    ``run_line``: the first row, offset and line of the last run of rows of one topic.

    ``out`` (``(qcode, dstart, dlen, values)``, see :func:`capacity`) receives the rows from
    row ``row0`` on instead of new arrays (the returned ones are views of it).

    ``plain``: lines of the plain form (six ASCII fields in a run, four in qrels, one blank
    between two, LF) are read by a faster path (see :func:`_plain_line`), the others by the
    general one; False: every line by the general one (for tests: the results are the same).
    ``n_plain``: the lines the fast path read.
    """
    cdef const uint8_t[::1] buf
    cdef int64_t cap
    cdef Parse P
    if end <= begin:
        buffer, begin, end = b"\n", 0, 1
    buf = buffer
    cap = capacity(end - begin, qrels)
    if out is None:
        out = (np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int64),
               np.empty(cap, dtype=np.int32),
               np.empty(cap, dtype=np.int64 if qrels else np.float64))
        row0 = 0
    qcode, dstart, dlen, values = (a[row0:] for a in out)
    if min(len(a) for a in (qcode, dstart, dlen, values)) < cap:
        raise ValueError("parse: the output arrays are too short")
    cdef int32_t[::1] vq = qcode
    cdef int64_t[::1] vs = dstart
    cdef int32_t[::1] vl = dlen
    cdef double[::1] vf
    cdef int64_t[::1] vi
    memset(&P, 0, sizeof(Parse))
    if qrels:
        vi = values
        P.rel = &vi[0]
    else:
        vf = values
        P.score = &vf[0]
    P.base = &buf[0]
    P.begin, P.end, P.qrels, P.plain = begin, end, qrels, plain
    P.qcode, P.dstart, P.dlen = &vq[0], &vs[0], &vl[0]
    if _dict_init(&P.topics) < 0:
        _dict_free(&P.topics)
        raise MemoryError
    try:
        with nogil:
            _parse(&P)
        if P.bad_kind == B_MEMORY:
            raise MemoryError
        topics = [bytes(buf[P.topics.start[i]: P.topics.start[i] + P.topics.length[i]])
                  for i in range(P.topics.n)]
    finally:
        _dict_free(&P.topics)
    n = P.n_rows
    return Parsed(
        qcode=qcode[:n], dstart=dstart[:n], dlen=dlen[:n],
        **{"rel" if qrels else "score": values[:n]}, topics=topics,
        tag=bytes(buf[P.tag_start:P.tag_end]), n_rows=n, n_lines=P.n_lines,
        n_plain=P.n_plain,
        bad=P.bad_kind, bad_line=P.bad_line, bad_at=P.bad_at,
        run_row=P.run_row, run_at=P.run_at, run_line=P.run_line,
    )


def capacity(int64_t size, bint qrels):
    """The most rows ``size`` bytes of run (qrels) lines can hold."""
    return size // (8 if qrels else 12) + 2


def count_line_ends(buffer, int64_t begin, int64_t end):
    """The line ends (LF, CRLF, lone CR) of ``buffer[begin:end]``: at least the rows it
    holds."""
    cdef const uint8_t[::1] buf = buffer
    cdef int64_t i, n = 0
    cdef const uint8_t* b = &buf[0] if buf.shape[0] else NULL
    cdef const uint8_t* p
    if end <= begin:
        return 0
    with nogil:
        if memchr(b + begin, 13, end - begin) == NULL:
            # no CR (the usual text): the LFs, found by memchr
            p = b + begin
            while True:
                p = <const uint8_t*>memchr(p, 10, b + end - p)
                if p == NULL:
                    break
                n += 1
                p += 1
        else:
            for i in range(begin, end):
                if b[i] == 10:
                    n += 1
                elif b[i] == 13 and not (i + 1 < end and b[i + 1] == 10):
                    n += 1
    return n


def remap(int32_t[::1] codes, const int32_t[::1] table):
    """``codes[i] = table[codes[i]]`` in place (``np.take`` would first copy int32 indices
    to a new int64 array)."""
    cdef int64_t i, n = codes.shape[0], m = table.shape[0]
    cdef int32_t c
    with nogil:
        for i in range(n):
            c = codes[i]
            if c < 0 or c >= m:
                with gil:
                    raise IndexError(f"remap: code {c} outside the table of {m}")
            codes[i] = table[c]


def group_rows(const int32_t[::1] codes, int64_t n_groups, bint wide=False, empty=None):
    """``(order, bounds)``: the rows of code ``c`` are ``order[bounds[c]:bounds[c + 1]]``, in
    row order (a counting sort). ``order`` is int32 below 2**31 rows unless ``wide``;
    ``empty(n, dtype)`` makes it (default ``np.empty``: the caller's allocator, for memory
    NumPy would ask huge pages for)."""
    cdef int64_t n = codes.shape[0], i, c
    bounds = np.zeros(n_groups + 1, dtype=np.int64)
    cdef int64_t[::1] b = bounds
    with nogil:
        for i in range(n):
            b[codes[i] + 1] += 1
        for c in range(n_groups):
            b[c + 1] += b[c]
    dtype = np.int64 if wide or n >= (1 << 31) else np.int32
    order = np.empty(n, dtype=dtype) if empty is None else empty(n, dtype)
    if order.dtype != dtype or order.shape[0] != n:
        raise ValueError("group_rows: empty(n, dtype) gave another array")
    if order.dtype == np.int32:
        _scatter[int32_t](codes, b, order)
    else:
        _scatter[int64_t](codes, b, order)
    with nogil:
        for c in range(n_groups, 0, -1):
            b[c] = b[c - 1]
        b[0] = 0
    return order, bounds


cdef void _scatter(const int32_t[::1] codes, int64_t[::1] b, index_t[::1] o) noexcept:
    cdef int64_t i, c
    with nogil:
        for i in range(codes.shape[0]):
            c = codes[i]
            o[b[c]] = <index_t>i
            b[c] += 1


include "_runjoin.pxi"
