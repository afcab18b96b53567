# The ids of run and qrels lines, included by ``_runreader.pyx``.
#
# * their hash (``_hash``, ``_same``: the join's table and the repeat checks);
# * the dictionary that codes a buffer's topic ids as the parser meets them (``Dict``);
# * their decoding into the rows of a NumPy str array (``ucs4_ids``: read_run, read_qrels).

# --- hashing ----------------------------------------------------------------------------

cdef uint64_t K1 = 0x9E3779B97F4A7C15
cdef uint64_t K2 = 0xFF51AFD7ED558CCD
cdef uint64_t K3 = 0xC4CEB9FE1A85EC53
cdef uint64_t SEED = 0x243F6A8885A308D3


cdef inline uint64_t _word(const uint8_t* p, int64_t n, const uint8_t* limit) noexcept nogil:
    """Little-endian word of the ``n`` (1..8) bytes at ``p``, zero-padded (read at once on
    a little-endian machine with 8 bytes before ``limit``, else byte by byte)."""
    cdef uint64_t w = 0
    cdef int64_t i
    if RR_LITTLE_ENDIAN and p + 8 <= limit:
        memcpy(&w, p, 8)
        if n < 8:
            w &= (<uint64_t>1 << (8 * n)) - 1
        return w
    for i in range(n):
        w |= (<uint64_t>p[i]) << (8 * i)
    return w


cdef inline uint64_t _fmix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= K2
    h ^= h >> 33
    h *= K3
    h ^= h >> 33
    return h


cdef inline uint64_t _hash(const uint8_t* p, int64_t n, const uint8_t* limit) noexcept nogil:
    cdef uint64_t h = SEED ^ <uint64_t>n
    while n > 0:
        h = (h ^ _word(p, 8 if n > 8 else n, limit)) * K1
        h ^= h >> 29
        p += 8
        n -= 8
    return _fmix(h)


cdef inline bint _same(const uint8_t* a, const uint8_t* b, int64_t n) noexcept nogil:
    """Whether ``a[:n] == b[:n]``."""
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


# --- the dictionary of topic ids (offsets into the buffer) -------------------------------

cdef struct Dict:
    int64_t* slots      # code + 1; 0: empty
    uint64_t mask
    int64_t n
    int64_t cap
    int64_t* start
    int32_t* length
    uint64_t* hash


cdef int _dict_init(Dict* d) noexcept nogil:
    d.mask = 1023
    d.n = 0
    d.cap = 512
    d.slots = <int64_t*>calloc(d.mask + 1, sizeof(int64_t))
    d.start = <int64_t*>malloc(d.cap * sizeof(int64_t))
    d.length = <int32_t*>malloc(d.cap * sizeof(int32_t))
    d.hash = <uint64_t*>malloc(d.cap * sizeof(uint64_t))
    if d.slots == NULL or d.start == NULL or d.length == NULL or d.hash == NULL:
        return -1
    return 0


cdef void _dict_free(Dict* d) noexcept nogil:
    free(d.slots)
    free(d.start)
    free(d.length)
    free(d.hash)
    d.slots = NULL
    d.start = NULL
    d.length = NULL
    d.hash = NULL


cdef int _dict_grow(Dict* d) noexcept nogil:
    cdef uint64_t size = 2 * (d.mask + 1), j
    cdef int64_t* slots = <int64_t*>calloc(size, sizeof(int64_t))
    cdef int64_t i
    if slots == NULL:
        return -1
    for i in range(d.n):
        j = d.hash[i] & (size - 1)
        while slots[j] != 0:
            j = (j + 1) & (size - 1)
        slots[j] = i + 1
    free(d.slots)
    d.slots = slots
    d.mask = size - 1
    return 0


cdef int32_t _dict_code(Dict* d, const uint8_t* base, int64_t start, int32_t length,
                        uint64_t h) noexcept nogil:
    """Code of ``base[start:start + length]`` (hash ``h``), added if new; -1: no memory."""
    cdef uint64_t j = h & d.mask
    cdef int64_t c
    while d.slots[j] != 0:
        c = d.slots[j] - 1
        if d.hash[c] == h and d.length[c] == length and \
                _same(base + d.start[c], base + start, length):
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
    d.slots[j] = c + 1
    if 2 * d.n > <int64_t>d.mask:
        if _dict_grow(d) < 0:
            return -1
    return <int32_t>c


# --- the ids as NumPy strings ----------------------------------------------------------------


def ucs4_ids(const uint8_t[::1] buf, const int64_t[::1] start, const int32_t[::1] length,
             uint32_t[:, ::1] out, int64_t row0=0):
    """Decode the ids ``buf[start[i]:start[i] + length[i]]`` (UTF-8 the parser checked) into
    rows ``row0 + i`` of ``out``, one code point per item (``out`` zeroed by the caller, viewed
    as a NumPy ``str`` array of its width: the readers' public type); return the most code points
    of an id. An id longer than the width, or a cut sequence, raises ``ValueError``."""
    cdef int64_t n = start.shape[0], width = out.shape[1], i, p, stop, k, m, most = 0
    cdef int64_t size = buf.shape[0]
    cdef uint32_t c
    cdef int need
    cdef const uint8_t* b = &buf[0] if size else NULL
    cdef uint32_t* row
    if length.shape[0] != n or row0 < 0 or row0 + n > out.shape[0]:
        raise ValueError("ucs4_ids: the arrays do not match")
    with nogil:
        for i in range(n):
            p = start[i]
            stop = p + length[i]
            if p < 0 or stop > size or stop < p:
                with gil:
                    raise ValueError(f"ucs4_ids: id {i} is outside the buffer")
            row = &out[row0 + i, 0]
            m = 0
            while p < stop:
                c = b[p]
                if c < 0x80:
                    need = 0
                elif c < 0xE0:
                    need, c = 1, c & 0x1F
                elif c < 0xF0:
                    need, c = 2, c & 0x0F
                else:
                    need, c = 3, c & 0x07
                if (need and p + need >= stop) or m >= width:
                    with gil:
                        raise ValueError(f"ucs4_ids: id {i} does not fit its row")
                for k in range(1, need + 1):
                    c = (c << 6) | (b[p + k] & 0x3F)
                row[m] = c
                m += 1
                p += need + 1
            most = max(most, m)
    return most
