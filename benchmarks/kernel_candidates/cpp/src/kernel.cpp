// skrank's one-pass ranking kernel (src/skrank/_kernels/_fast.py, evaluate_contiguous, at
// commit a128660) ported to C++17 for issue 11's kernel prototype, with what it calls from
// _metrics.py (_exact, _expected, _expected_rr, _avg_products, _tie_affected, discounts) and
// _select.py (select_top). A benchmark prototype only, never a dependency of skrank.
//
// Bit for bit the numba kernel: every floating-point operation is the numba code's, in the
// same order and in the same precision (numba's int / int is a float64 division; a float32
// score meets float64 values in float64, as numba promotes it), compiled with
// -ffp-contract=off and without -ffast-math. Python's names are kept so that the two read
// side by side.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// metric kinds, gain modes, AP denominators, tie modes (as in _metrics.py and _select.py)
constexpr i64 NDCG = 0, DCG = 1, P = 2, R = 3, HIT = 4, AP = 5, RR = 6, ERR = 7;
constexpr i64 GAIN_EXP = 0, GAIN_LINEAR = 1, GAIN_TABLE = 2;
constexpr i64 AP_ALL = 0, AP_MIN_K = 1;
constexpr i64 PESSIMISTIC = 0, OPTIMISTIC = 1, INPUT = 2, AVERAGE = 3, DOCID = 4;

constexpr i64 SMALL_K = 32;         // _fast.SMALL_K and _select.SMALL_K
constexpr i64 MAX_CANDIDATES = 64;  // _fast.MAX_CANDIDATES
constexpr double INF = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- _metrics.py

inline double gain_of(i64 label, i64 mode, const double* table) {
    if (mode == GAIN_EXP) return std::pow(2.0, static_cast<double>(label)) - 1.0;
    if (mode == GAIN_LINEAR) return static_cast<double>(label);
    return table[label];
}

std::vector<double> discounts(i64 n) {
    std::vector<double> out(static_cast<size_t>(n));
    for (i64 i = 0; i < n; ++i) out[i] = 1.0 / std::log2(static_cast<double>(i) + 2.0);
    return out;
}

inline double stop_prob(i64 label, double rel_min, double err_scale) {
    if (static_cast<double>(label) < rel_min) return 0.0;
    // 2.0 ** label: a power of two, exact both ways
    return (std::pow(2.0, static_cast<double>(label)) - 1.0) * err_scale;
}

void avg_products(const double* values, i64 n_values, i64 skip, i64 t_max, double* out) {
    out[0] = 1.0;
    for (i64 t = 1; t <= t_max; ++t) out[t] = 0.0;
    i64 size = 0;
    for (i64 j = 0; j < n_values; ++j) {
        if (j == skip) continue;
        double w = 1.0 - values[j];
        size += 1;
        i64 top = std::min(size, t_max);
        for (i64 t = top; t > 0; --t) {
            out[t] = out[t] * static_cast<double>(size - t) / static_cast<double>(size) +
                     w * out[t - 1] * static_cast<double>(t) / static_cast<double>(size);
        }
    }
}

// _tie_affected: scores in the kernel's score dtype, compared in float64 with last_score
template <class S>
bool tie_affected(bool across_only, const S* scores, const i64* labels, i64 kk, i64 n_top,
                  double last_score, bool continues, i64 last_lo, i64 last_hi) {
    i64 i = 0;
    while (i < kk) {
        S s = scores[i];
        i64 lo = labels[i];
        i64 hi = lo;
        i64 e = i + 1;
        while (e < n_top && scores[e] == s) {
            lo = std::min(lo, labels[e]);
            hi = std::max(hi, labels[e]);
            e += 1;
        }
        bool cut = e > kk || (static_cast<double>(s) == last_score && continues);
        if (static_cast<double>(s) == last_score) {
            lo = std::min(lo, last_lo);
            hi = std::max(hi, last_hi);
        }
        if (hi != lo && (cut || !across_only)) return true;
        i = e;
    }
    return false;
}

inline double exact(i64 kind, i64 kk, i64 k, const i64* top_labels, i64 gain_mode,
                    const double* gain_table, double rel_min, double err_scale, i64 ap_den,
                    bool p_min_kn, i64 n, i64 n_rel_src, const double* disc,
                    const double* ideal, i64 n_ideal, bool terms_times_inverse) {
    if (kind == DCG || kind == NDCG) {
        double inv = 0.0;
        if (kind == NDCG) {
            double idcg = 0.0;
            i64 lim = std::min(k > 0 ? k : n_ideal, n_ideal);
            for (i64 i = 0; i < lim; ++i) idcg += ideal[i] * disc[i];
            if (idcg <= 0.0) return 0.0;
            inv = 1.0 / idcg;
            if (terms_times_inverse) {  // XGBoost: sum of gain * discount * (1 / IDCG)
                double total = 0.0;
                for (i64 i = 0; i < kk; ++i)
                    total += gain_of(top_labels[i], gain_mode, gain_table) * disc[i] * inv;
                return total;
            }
        }
        double dcg = 0.0;
        for (i64 i = 0; i < kk; ++i) dcg += gain_of(top_labels[i], gain_mode, gain_table) * disc[i];
        if (kind == DCG) return dcg;
        return dcg * inv;  // LightGBM: DCG * (1 / IDCG)
    }
    if (kind == ERR) {
        double err = 0.0;
        double p_reach = 1.0;
        for (i64 i = 0; i < kk; ++i) {
            double rp = stop_prob(top_labels[i], rel_min, err_scale);
            err += p_reach * rp / (static_cast<double>(i) + 1.0);
            p_reach *= 1.0 - rp;
        }
        return err;
    }
    i64 hits = 0;
    double sum_prec = 0.0;
    for (i64 i = 0; i < kk; ++i) {
        if (static_cast<double>(top_labels[i]) >= rel_min) {
            hits += 1;
            if (kind == AP) sum_prec += static_cast<double>(hits) / (static_cast<double>(i) + 1.0);
        }
    }
    if (kind == P) {
        i64 div = k > 0 ? k : n;
        if (p_min_kn && n < div) div = n;
        return div > 0 ? static_cast<double>(hits) / static_cast<double>(div) : 0.0;
    }
    if (kind == R)
        return n_rel_src > 0 ? static_cast<double>(hits) / static_cast<double>(n_rel_src) : 0.0;
    if (kind == HIT) return hits > 0 ? 1.0 : 0.0;
    i64 den;
    if (ap_den == AP_ALL)
        den = n_rel_src;
    else if (ap_den == AP_MIN_K)
        den = std::min(n_rel_src, kk);
    else
        den = hits;
    return den > 0 ? sum_prec / static_cast<double>(den) : 0.0;
}

inline double expected_rr(i64 n_before, i64 g, i64 g_rel, i64 k) {
    i64 limit = g - g_rel + 1;
    if (k > 0) limit = std::min(limit, k - n_before);
    double value = 0.0;
    double q = 1.0;
    for (i64 t = 0; t < std::max<i64>(limit, 0); ++t) {
        value += q * static_cast<double>(g_rel) / static_cast<double>(g - t) /
                 (static_cast<double>(n_before + t) + 1.0);
        q *= static_cast<double>(g - g_rel - t) / static_cast<double>(g - t);
    }
    return value;
}

inline double lchoose(i64 n, i64 k) {
    return std::lgamma(static_cast<double>(n) + 1.0) - std::lgamma(static_cast<double>(k) + 1.0) -
           std::lgamma(static_cast<double>(n - k) + 1.0);
}

// _expected: ``lbuf`` holds 2 * half entries (the last group's labels, then scratch for an
// inner group's), ``scores`` is in the kernel's score dtype
template <class S>
double expected(i64 kind, i64 kk, i64 k, const i64* top, i64 n_top, i64 last_start,
                i64 last_total, i64* lbuf, i64 half, const S* scores, const i64* labels,
                i64 gain_mode, const double* gain_table, double rel_min, double err_scale,
                i64 ap_den, bool p_min_kn, i64 n, i64 n_rel_src, const double* disc,
                const double* ideal, i64 n_ideal, double* prodbuf) {
    double dcg = 0.0;
    double exp_hits = 0.0;
    i64 hits_before = 0;
    double p_none = 1.0;
    double err = 0.0;
    double p_reach = 1.0;
    double ap_num = 0.0;
    bool found_cut = false;
    i64 cut_g = 0, cut_r = 0, cut_m = 0, cut_start = 0, cut_hits_before = 0;
    i64 i = 0;
    while (i < kk) {
        S s = scores[top[i]];
        i64 e = i + 1;
        while (e < n_top && scores[top[e]] == s) e += 1;
        if (e == i + 1 && i != last_start && kind != ERR) {
            // a row tied with no other: the steps below with g = 1
            i64 lab = labels[top[i]];
            i64 r = static_cast<double>(lab) >= rel_min ? 1 : 0;
            dcg += gain_of(lab, gain_mode, gain_table) * disc[i];
            exp_hits += static_cast<double>(r);
            p_none *= static_cast<double>(1 - r) / 1.0;
            ap_num += (static_cast<double>(r) / 1.0 * static_cast<double>(hits_before + 1) +
                       0.0 * 0.0) /
                      (static_cast<double>(i) + 1.0);
            hits_before += r;
            i = e;
            continue;
        }
        i64 g;
        const i64* grp_labels;
        if (i == last_start) {
            g = last_total;
            grp_labels = lbuf;
        } else {
            g = e - i;
            for (i64 t = 0; t < g; ++t) lbuf[half + t] = labels[top[i + t]];
            grp_labels = lbuf + half;
        }
        i64 mslots = std::min(g, kk - i);
        double gsum = 0.0;
        i64 r = 0;
        for (i64 t = 0; t < g; ++t) {
            i64 lab = grp_labels[t];
            gsum += gain_of(lab, gain_mode, gain_table);
            if (static_cast<double>(lab) >= rel_min) r += 1;
        }
        double dsum = 0.0;
        for (i64 t = 0; t < mslots; ++t) dsum += disc[i + t];
        const double gd = static_cast<double>(g);
        dcg += gsum / gd * dsum;
        exp_hits += static_cast<double>(r * mslots) / gd;
        double q = 1.0;
        for (i64 t = 0; t < mslots; ++t)
            q *= static_cast<double>(g - r - t) / static_cast<double>(g - t);
        p_none *= q;
        for (i64 t = 0; t < mslots; ++t) {
            double pair = g > 1 ? static_cast<double>(r * (r - 1)) / (gd * (gd - 1.0)) : 0.0;
            ap_num += (static_cast<double>(r) / gd * static_cast<double>(hits_before + 1) +
                       static_cast<double>(t) * pair) /
                      (static_cast<double>(i + t) + 1.0);
        }
        if (mslots < g) {
            found_cut = true;
            cut_g = g;
            cut_r = r;
            cut_m = mslots;
            cut_start = i;
            cut_hits_before = hits_before;
        }
        if (kind == ERR) {
            double contrib = 0.0;
            for (i64 t = 0; t < g; ++t)
                prodbuf[g + 1 + t] = stop_prob(grp_labels[t], rel_min, err_scale);
            const double* stops = prodbuf + g + 1;
            for (i64 a = 0; a < g; ++a) {
                double ra = stops[a];
                if (ra == 0.0) continue;
                bool seen = false;
                for (i64 b = 0; b < a; ++b) {
                    if (stops[b] == ra) {
                        seen = true;
                        break;
                    }
                }
                if (seen) continue;
                i64 same = 0;
                for (i64 b = a; b < g; ++b) same += stops[b] == ra;
                avg_products(stops, g, a, mslots - 1, prodbuf);
                for (i64 t = 0; t < mslots; ++t)
                    contrib += static_cast<double>(same) * ra * prodbuf[t] / gd /
                               (static_cast<double>(i + t) + 1.0);
            }
            err += p_reach * contrib;
            double whole = 1.0;
            for (i64 t = 0; t < g; ++t) whole *= 1.0 - stops[t];
            p_reach *= whole;
        }
        hits_before += r;
        i = i + mslots;
    }
    if (kind == DCG || kind == NDCG) {
        if (kind == DCG) return dcg;
        double idcg = 0.0;
        i64 lim = std::min(k > 0 ? k : n_ideal, n_ideal);
        for (i64 t = 0; t < lim; ++t) idcg += ideal[t] * disc[t];
        return idcg > 0.0 ? dcg / idcg : 0.0;
    }
    if (kind == ERR) return err;
    if (kind == P) {
        i64 div = k > 0 ? k : n;
        if (p_min_kn && n < div) div = n;
        return div > 0 ? exp_hits / static_cast<double>(div) : 0.0;
    }
    if (kind == R) return n_rel_src > 0 ? exp_hits / static_cast<double>(n_rel_src) : 0.0;
    if (kind == HIT) return 1.0 - p_none;
    if (ap_den == AP_ALL) return n_rel_src > 0 ? ap_num / static_cast<double>(n_rel_src) : 0.0;
    if (ap_den == AP_MIN_K) {
        i64 den = std::min(n_rel_src, kk);
        return den > 0 ? ap_num / static_cast<double>(den) : 0.0;
    }
    if (!found_cut) {
        double fixed = exp_hits;
        return fixed > 0 ? ap_num / fixed : 0.0;
    }
    i64 g = cut_g;
    i64 r = cut_r;
    i64 mslots = cut_m;
    const double gd = static_cast<double>(g);
    double pair_all = g > 1 ? static_cast<double>(r * (r - 1)) / (gd * (gd - 1.0)) : 0.0;
    double cut_part = 0.0;
    for (i64 t = 0; t < mslots; ++t)
        cut_part += (static_cast<double>(r) / gd * static_cast<double>(cut_hits_before + 1) +
                     static_cast<double>(t) * pair_all) /
                    (static_cast<double>(cut_start + t) + 1.0);
    double before_num = ap_num - cut_part;
    double value = 0.0;
    for (i64 h = 0; h < std::min(r, mslots) + 1; ++h) {
        if (mslots - h > g - r) continue;
        double logp = lchoose(r, h) + lchoose(g - r, mslots - h) - lchoose(g, mslots);
        double ph = std::exp(logp);
        i64 den = cut_hits_before + h;
        if (den == 0) continue;
        double num = 0.0;
        if (h > 0) {
            const double md = static_cast<double>(mslots);
            double pair = mslots > 1 ? static_cast<double>(h * (h - 1)) / (md * (md - 1.0)) : 0.0;
            for (i64 t = 0; t < mslots; ++t)
                num += (static_cast<double>(h) / md * static_cast<double>(cut_hits_before + 1) +
                        static_cast<double>(t) * pair) /
                       (static_cast<double>(cut_start + t) + 1.0);
        }
        value += ph * (before_num + num) / static_cast<double>(den);
    }
    return value;
}

// ---------------------------------------------------------------- _select.py

template <class S>
inline bool before_key(S sa, i64 la, i64 ta, i64 a, S sb, i64 lb, i64 tb, i64 b, i64 mode) {
    if (sa != sb) return sa > sb;
    if (mode == PESSIMISTIC) {
        if (la != lb) return la < lb;
    } else if (mode == OPTIMISTIC) {
        if (la != lb) return la > lb;
    } else if (mode == DOCID) {
        if (ta != tb) return ta > tb;
    }
    return a < b;
}

template <class S>
inline void put(i64* out, S* hs, i64* hl, i64* ht, i64 pos, i64 r, S sr, i64 lr, i64 tr) {
    out[pos] = r;
    hs[pos] = sr;
    hl[pos] = lr;
    ht[pos] = tr;
}

template <class S>
inline void sift_down(i64* out, S* hs, i64* hl, i64* ht, i64 size, i64 r, S sr, i64 lr, i64 tr,
                      i64 mode) {
    i64 pos = 0;
    while (true) {
        i64 child = 2 * pos + 1;
        if (child >= size) break;
        i64 right = child + 1;
        if (right < size && before_key(hs[child], hl[child], ht[child], out[child], hs[right],
                                       hl[right], ht[right], out[right], mode))
            child = right;
        if (!before_key(sr, lr, tr, r, hs[child], hl[child], ht[child], out[child], mode)) break;
        put(out, hs, hl, ht, pos, out[child], hs[child], hl[child], ht[child]);
        pos = child;
    }
    put(out, hs, hl, ht, pos, r, sr, lr, tr);
}

template <class S>
i64 select_sorted(i64 n, i64 k, const S* scores, const i64* labels, const i64* tiekey,
                  bool use_key, i64 mode, i64* out, S* hs, i64* hl, i64* ht) {
    i64 size = 0;
    for (i64 r = 0; r < n; ++r) {
        S sr = scores[r];
        if (size == k && sr < hs[k - 1]) continue;
        i64 lr = labels[r];
        i64 tr = use_key ? tiekey[r] : 0;
        i64 pos;
        if (size == k) {
            if (!before_key(sr, lr, tr, r, hs[k - 1], hl[k - 1], ht[k - 1], out[k - 1], mode))
                continue;
            pos = k - 1;
        } else {
            pos = size;
            size += 1;
        }
        while (pos > 0 && before_key(sr, lr, tr, r, hs[pos - 1], hl[pos - 1], ht[pos - 1],
                                     out[pos - 1], mode)) {
            put(out, hs, hl, ht, pos, out[pos - 1], hs[pos - 1], hl[pos - 1], ht[pos - 1]);
            pos -= 1;
        }
        put(out, hs, hl, ht, pos, r, sr, lr, tr);
    }
    return size;
}

template <class S>
i64 select_top(i64 n, i64 k, const S* scores, const i64* labels, const i64* tiekey,
               bool use_key, i64 mode, i64* out, S* hs, i64* hl, i64* ht) {
    if (k > n) k = n;
    if (k <= 0) return 0;
    use_key = use_key && mode == DOCID;
    if (k <= SMALL_K)
        return select_sorted(n, k, scores, labels, tiekey, use_key, mode, out, hs, hl, ht);
    i64 size = 0;
    for (i64 r = 0; r < n; ++r) {
        S sr = scores[r];
        if (size == k && sr < hs[0]) continue;
        i64 lr = labels[r];
        i64 tr = use_key ? tiekey[r] : 0;
        if (size < k) {
            i64 pos = size;
            while (pos > 0) {
                i64 parent = (pos - 1) / 2;
                if (!before_key(hs[parent], hl[parent], ht[parent], out[parent], sr, lr, tr, r,
                                mode))
                    break;
                put(out, hs, hl, ht, pos, out[parent], hs[parent], hl[parent], ht[parent]);
                pos = parent;
            }
            put(out, hs, hl, ht, pos, r, sr, lr, tr);
            size += 1;
        } else if (before_key(sr, lr, tr, r, hs[0], hl[0], ht[0], out[0], mode)) {
            sift_down(out, hs, hl, ht, size, r, sr, lr, tr, mode);
        }
    }
    for (i64 end = size - 1; end > 0; --end) {
        i64 r = out[end];
        S sr = hs[end];
        i64 lr = hl[end];
        i64 tr = ht[end];
        put(out, hs, hl, ht, end, out[0], hs[0], hl[0], ht[0]);
        sift_down(out, hs, hl, ht, end, r, sr, lr, tr, mode);
    }
    return size;
}

// ---------------------------------------------------------------- _fast.py

// _label_index: (index, wrong) of a label in a gain table of n_labels entries
inline std::pair<i64, bool> label_index(i64 lab, i64 n_labels) {
    return {lab, static_cast<u64>(lab) >= static_cast<u64>(n_labels)};
}
inline std::pair<i64, bool> label_index(double lab, i64 n_labels) {
    i64 li = (lab >= 0) & (lab < static_cast<double>(n_labels)) ? static_cast<i64>(lab) : 0;
    return {li, static_cast<double>(li) != lab};
}

// the bad-row recheck of a block: numba compares an int label with an int n_labels and a
// float label in float64
inline bool label_bad(i64 lab, i64 n_labels) { return !(lab >= 0 && lab < n_labels); }
inline bool label_bad(double lab, i64 n_labels) {
    if (!(lab >= 0 && lab < static_cast<double>(n_labels))) return true;
    return static_cast<double>(static_cast<i64>(lab)) != lab;
}

template <class S>
inline i64 count_at_least(const S* values, i64 n, double t) {
    i64 c = 0;
    for (i64 i = 0; i < n; ++i) c += static_cast<double>(values[i]) >= t;
    return c;
}

template <class S>
i64 candidates(const S* values, const i64* labels, i64 n, i64 k, double v_min, double v_max,
               S* cand_values, i64* cand_labels, i64* cand) {
    double t_lo = v_min;
    i64 c_lo = n;
    double t_hi = v_max;
    i64 c_hi = 0;
    for (int step = 0; step < 8; ++step) {
        if (c_lo <= k + k / 2 + 1) break;
        double t = t_hi - (t_hi - t_lo) * ((1.2 * static_cast<double>(k) -
                                            static_cast<double>(c_hi)) /
                                           static_cast<double>(c_lo - c_hi));
        if (!(t > t_lo && t <= t_hi)) break;
        i64 c = count_at_least(values, n, t);
        if (c >= k) {
            t_lo = t;
            c_lo = c;
        } else {
            t_hi = t;
            c_hi = c;
        }
    }
    if (c_lo > MAX_CANDIDATES) return c_lo;
    i64 c = 0;
    for (i64 i = 0; i < n; ++i) {
        S v = values[i];
        cand_values[c] = v;
        cand_labels[c] = labels[i];
        cand[c] = i;
        c += static_cast<double>(v) >= t_lo;
    }
    return c;
}

template <class S>
void rank_candidates(const S* cs, const i64* ck, const i64* cl, i64 n_cand, S* hs, i64* hl) {
    for (i64 i = 0; i < n_cand; ++i) {
        S si = cs[i];
        i64 ki = ck[i];
        i64 rank = 0;
        for (i64 j = 0; j < n_cand; ++j)
            rank += static_cast<i64>((cs[j] > si) | ((cs[j] == si) & (ck[j] < ki)));
        hs[rank] = si;
        hl[rank] = cl[i];
    }
}

// added to a value: keep it (index 1) or push it out of a minimum / maximum (index 0)
constexpr double MASK_UP[2] = {INF, 0.0};
constexpr double MASK_DOWN[2] = {-INF, 0.0};

template <class S>
std::pair<double, bool> reciprocal_rank(const S* scores, const i64* labels, i64 n, i64 k,
                                        i64 tie_mode, double rel_min) {
    double m = -INF;
    for (i64 i = 0; i < n; ++i) {
        double v = static_cast<double>(scores[i]) +
                   MASK_DOWN[static_cast<i64>(static_cast<double>(labels[i]) >= rel_min)];
        m = v > m ? v : m;
    }
    if (m == -INF) return {0.0, false};
    i64 n_above = 0, g = 0, g_rel = 0;
    double best_label = INF;
    double first_rel = INF;
    for (i64 i = 0; i < n; ++i) {
        const double si = static_cast<double>(scores[i]);
        bool tied = si == m;
        bool rel = tied & (static_cast<double>(labels[i]) >= rel_min);
        n_above += si > m;
        g += tied;
        g_rel += rel;
        double lab = static_cast<double>(labels[i]) + MASK_UP[static_cast<i64>(rel)];
        best_label = lab < best_label ? lab : best_label;
        double pos = static_cast<double>(i) + MASK_UP[static_cast<i64>(rel)];
        first_rel = pos < first_rel ? pos : first_rel;
    }
    i64 before = 0;
    if (tie_mode == PESSIMISTIC) {
        for (i64 i = 0; i < n; ++i)
            before += (static_cast<double>(scores[i]) == m) &
                      (static_cast<double>(labels[i]) < best_label);
    } else if (tie_mode != OPTIMISTIC && tie_mode != AVERAGE) {
        const i64 stop = static_cast<i64>(first_rel);
        for (i64 i = 0; i < stop; ++i) before += static_cast<double>(scores[i]) == m;
    }
    bool affected = g > g_rel && g_rel > 0;
    if (tie_mode == AVERAGE) return {expected_rr(n_above, g, g_rel, k), affected};
    i64 rank = n_above + before + 1;
    if (k > 0 && rank > k) return {0.0, affected};
    return {1.0 / static_cast<double>(rank), affected};
}

struct Args {
    const i64* offsets;
    i64 n_offsets;
    const double* gain_table;
    i64 n_labels;
    const i64* gain_order;
    const i64* kinds;
    const i64* ks;
    i64 m;
    i64 tie_mode;
    double rel_min;
    double err_scale;
    i64 ap_den;
    bool p_min_kn;
    bool terms_times_inverse;
    double* values;
    bool* empty;
    bool* ties;
};

template <class L, class S>
i64 evaluate_contiguous(const Args& a, const L* labels, const S* scores) {
    const i64* offsets = a.offsets;
    const i64 n_q = a.n_offsets - 1;
    const i64 m = a.m;
    const i64 n_labels = a.n_labels;
    const double* gain_table = a.gain_table;
    const i64 tie_mode = a.tie_mode;
    const double rel_min = a.rel_min;
    const std::vector<double> disc_v = discounts(std::max<i64>(SMALL_K, 1));
    const double* disc = disc_v.data();
    i64 k_sort = 0;
    i64 k_ideal = 0;
    for (i64 j = 0; j < m; ++j) {
        if (a.kinds[j] != RR && a.ks[j] > k_sort) k_sort = a.ks[j];
        if (a.kinds[j] == NDCG && a.ks[j] > k_ideal) k_ideal = a.ks[j];
    }
    i64 max_n = 1;
    for (i64 q = 0; q < n_q; ++q) max_n = std::max(max_n, offsets[q + 1] - offsets[q]);
    const size_t n_h = static_cast<size_t>(std::max(k_sort + 1, MAX_CANDIDATES));
    const size_t n_k = static_cast<size_t>(std::max<i64>(k_sort, 1));
    std::vector<S> bs(max_n), hs(n_h), cs(max_n);
    std::vector<i64> bl(max_n), hl(n_h), cand(max_n), cl(max_n), ck(MAX_CANDIDATES);
    std::vector<i64> hp(n_k), ht(n_k, 0);
    std::vector<double> ideal(static_cast<size_t>(std::max<i64>(k_ideal, 1)));
    std::vector<i64> counts(static_cast<size_t>(std::max<i64>(n_labels, 8)), 0);
    const bool average = tie_mode == AVERAGE;
    std::vector<i64> lbuf(average ? 2 * max_n + 2 : 0);
    std::vector<double> prodbuf(average ? 3 * max_n + 3 : 0);
    const i64 half = static_cast<i64>(lbuf.size()) / 2;
    std::vector<i64> identity(n_h);
    for (size_t i = 0; i < n_h; ++i) identity[i] = static_cast<i64>(i);
    bool monotone = true;
    for (i64 c = 1; c < n_labels; ++c)
        if (gain_table[c] < gain_table[c - 1]) monotone = false;
    const bool pess = tie_mode == PESSIMISTIC;
    const bool opt = tie_mode == OPTIMISTIC;

    for (i64 q = 0; q < n_q; ++q) {
        const i64 lo = offsets[q];
        const i64 hi = offsets[q + 1];
        const i64 n = hi - lo;
        const i64 kq = std::min(k_sort, n);

        // pass 1: check each row, count its label, copy it, find the score range
        i64 max_label = 0;
        double s_min = INF;
        double s_max = -INF;
        for (i64 block = lo; block < hi; block += 255) {
            const i64 block_end = std::min(block + 255, hi);
            i64 packed = 0;
            bool bad = false;
            double nan = 0.0;
            for (i64 r = block; r < block_end; ++r) {
                const u64 ur = static_cast<u64>(r);
                const L lab = labels[ur];
                const S sc = scores[ur];
                auto [li, wrong] = label_index(lab, n_labels);
                bad |= wrong;
                nan += static_cast<double>(sc) * 0.0;
                if (static_cast<u64>(li) < 8u) {
                    packed += i64(1) << (li << 3);
                } else if (!wrong) {
                    counts[li] += 1;
                    max_label = std::max(max_label, li);
                }
                const u64 ui = static_cast<u64>(r - lo);
                bs[ui] = sc;
                bl[ui] = li;
                const double sd = static_cast<double>(sc);
                s_min = sd < s_min ? sd : s_min;
                s_max = sd > s_max ? sd : s_max;
            }
            if (bad || nan != 0.0) {
                for (i64 r = block; r < block_end; ++r) {
                    const S sc = scores[r];
                    if (label_bad(labels[r], n_labels) || sc - sc != 0.0) return r;
                }
            }
            for (i64 c = 0; c < 8; ++c) {
                const i64 cnt = (packed >> (c << 3)) & 255;
                counts[c] += cnt;
                max_label = (cnt > 0 && c > max_label) ? c : max_label;
            }
        }

        // the best kq rows in rank order into hs/hl
        bool continues = false;
        if (kq > 0) {
            const i64 n_cand = candidates(bs.data(), bl.data(), n, kq, s_min, s_max, cs.data(),
                                          cl.data(), cand.data());
            if (n_cand <= MAX_CANDIDATES) {
                if (pess) {
                    for (i64 i = 0; i < n_cand; ++i) ck[i] = cl[i] * n + cand[i];
                } else if (opt) {
                    for (i64 i = 0; i < n_cand; ++i) ck[i] = (n_labels - 1 - cl[i]) * n + cand[i];
                } else {
                    for (i64 i = 0; i < n_cand; ++i) ck[i] = cand[i];
                }
                rank_candidates(cs.data(), ck.data(), cl.data(), n_cand, hs.data(), hl.data());
                continues = n_cand > kq && hs[kq] == hs[kq - 1];
            } else {
                // heavy ties: the general kernel's selection, then whether a row left out
                // shares the last selected score
                select_top(n, kq, bs.data(), bl.data(), ht.data(), false,
                           !average ? tie_mode : INPUT, hp.data(), hs.data(), hl.data(),
                           ht.data());
                i64 n_last = 0;
                for (i64 i = 0; i < n; ++i) n_last += bs[i] == hs[kq - 1];
                i64 n_last_in = 0;
                for (i64 i = 0; i < kq; ++i) n_last_in += hs[i] == hs[kq - 1];
                continues = n_last > n_last_in;
            }
        }

        // labels: relevant count, the largest gain, the ideal ranking
        i64 n_rel = 0;
        double max_gain = 0.0;
        for (i64 c = 0; c <= max_label; ++c) {
            if (counts[c] > 0) {
                if (static_cast<double>(c) >= rel_min) n_rel += counts[c];
                if (gain_table[c] > max_gain) max_gain = gain_table[c];
            }
        }
        i64 n_ideal = 0;
        if (k_ideal > 0) {
            for (i64 i = 0; i < n_labels; ++i) {
                const i64 c = monotone ? max_label - i : a.gain_order[i];
                if (c < 0) break;
                if (c > max_label) continue;
                i64 cnt = counts[c];
                while (cnt > 0 && n_ideal < k_ideal) {
                    ideal[n_ideal] = gain_table[c];
                    n_ideal += 1;
                    cnt -= 1;
                }
                if (n_ideal == k_ideal) break;
            }
        }
        for (i64 c = 0; c <= max_label; ++c) counts[c] = 0;

        // the tie group of the last buffered score
        const i64 n_top = kq;
        const double last_score = n_top > 0 ? static_cast<double>(hs[n_top - 1]) : 0.0;
        i64 last_start = n_top;
        while (last_start > 0 && static_cast<double>(hs[last_start - 1]) == last_score)
            last_start -= 1;
        i64 last_lo = 0;
        i64 last_hi = 0;
        if (n_top > 0) {
            last_lo = hl[n_top - 1];
            last_hi = last_lo;
            for (i64 t = last_start; t < n_top; ++t) {
                last_lo = std::min(last_lo, hl[t]);
                last_hi = std::max(last_hi, hl[t]);
            }
            if (continues) {
                for (i64 i = 0; i < n; ++i) {
                    if (static_cast<double>(bs[i]) == last_score) {
                        last_lo = std::min(last_lo, bl[i]);
                        last_hi = std::max(last_hi, bl[i]);
                    }
                }
            }
        }
        i64 last_total = n_top - last_start;
        if (average && continues) {
            last_total = 0;
            for (i64 i = 0; i < n; ++i) {
                if (static_cast<double>(bs[i]) == last_score) {
                    lbuf[last_total] = bl[i];
                    last_total += 1;
                }
            }
        } else if (average) {
            for (i64 t = 0; t < last_total; ++t) lbuf[t] = hl[last_start + t];
        }

        // the start of the first tie group (inside the buffer) whose labels are mixed
        i64 first_mixed = n_top;
        i64 start = 0;
        for (i64 i = 1; i < n_top; ++i) {
            const i64 same = static_cast<i64>(hs[i] == hs[i - 1]);
            start = i - (i - start) * same;
            const i64 pair = same & static_cast<i64>(hl[i] != hl[i - 1]);
            first_mixed = std::min(first_mixed, n_top - (n_top - start) * pair);
        }

        for (i64 j = 0; j < m; ++j) {
            const i64 kind = a.kinds[j];
            const i64 k = a.ks[j];
            const bool graded = kind == NDCG || kind == DCG;
            const i64 at = q * m + j;
            a.empty[at] = graded ? (max_gain <= 0.0) : (n_rel == 0);
            if (kind == RR) {
                auto [v, t] = reciprocal_rank(bs.data(), bl.data(), n, k, tie_mode, rel_min);
                a.values[at] = v;
                a.ties[at] = t;
                continue;
            }
            const i64 kk = std::min(k, n);
            if (average) {
                a.values[at] = expected(kind, kk, k, identity.data(), n_top, last_start,
                                        last_total, lbuf.data(), half, hs.data(), hl.data(),
                                        GAIN_TABLE, gain_table, rel_min, a.err_scale, a.ap_den,
                                        a.p_min_kn, n, n_rel, disc, ideal.data(), n_ideal,
                                        prodbuf.data());
            } else {
                a.values[at] = exact(kind, kk, k, hl.data(), GAIN_TABLE, gain_table, rel_min,
                                     a.err_scale, a.ap_den, a.p_min_kn, n, n_rel, disc,
                                     ideal.data(), n_ideal, a.terms_times_inverse);
            }
            bool affected;
            if (kind == P || kind == R || kind == HIT) {
                affected = tie_affected(true, hs.data(), hl.data(), kk, n_top, last_score,
                                        continues, last_lo, last_hi);
            } else {
                affected = first_mixed < kk || (last_start < kk && last_hi != last_lo);
            }
            a.ties[at] = affected;
        }
    }
    return -1;
}

// ---------------------------------------------------------------- bindings

template <class T>
using Vec = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Out = nb::ndarray<T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

template <class L, class S>
i64 evaluate_binding(Vec<i64> offsets, Vec<L> labels, Vec<S> scores, i64 tie_mode,
                     Vec<double> gain_table, Vec<i64> gain_order, double rel_min,
                     double err_scale, i64 ap_den, bool p_min_kn, Vec<i64> kinds, Vec<i64> ks,
                     bool terms_times_inverse, Out<double> values, Out<bool> empty,
                     Out<bool> ties) {
    const i64 n_q = static_cast<i64>(offsets.shape(0)) - 1;
    const i64 m = static_cast<i64>(kinds.shape(0));
    if (static_cast<i64>(ks.shape(0)) != m || labels.shape(0) != scores.shape(0))
        throw nb::value_error("kinds/ks or labels/scores differ in length");
    if (static_cast<i64>(values.shape(0)) != n_q || static_cast<i64>(values.shape(1)) != m ||
        static_cast<i64>(empty.shape(0)) != n_q || static_cast<i64>(empty.shape(1)) != m ||
        static_cast<i64>(ties.shape(0)) != n_q || static_cast<i64>(ties.shape(1)) != m)
        throw nb::value_error("values, empty and ties must have shape (n_queries, n_metrics)");
    if (gain_order.shape(0) < gain_table.shape(0))
        throw nb::value_error("gain_order is shorter than gain_table");
    Args a{offsets.data(), static_cast<i64>(offsets.shape(0)), gain_table.data(),
           static_cast<i64>(gain_table.shape(0)), gain_order.data(), kinds.data(), ks.data(), m,
           tie_mode, rel_min, err_scale, ap_den, p_min_kn, terms_times_inverse, values.data(),
           empty.data(), ties.data()};
    const L* lab = labels.data();
    const S* sc = scores.data();
    nb::gil_scoped_release release;  // the arrays stay referenced by the arguments
    return evaluate_contiguous<L, S>(a, lab, sc);
}

template <class L, class S>
void def_overload(nb::module_& mod) {
    mod.def("evaluate_contiguous", &evaluate_binding<L, S>, nb::arg("offsets").noconvert(),
            nb::arg("labels").noconvert(), nb::arg("scores").noconvert(), nb::arg("tie_mode"),
            nb::arg("gain_table").noconvert(), nb::arg("gain_order").noconvert(),
            nb::arg("rel_min"), nb::arg("err_scale"), nb::arg("ap_den"), nb::arg("p_min_kn"),
            nb::arg("kinds").noconvert(), nb::arg("ks").noconvert(),
            nb::arg("terms_times_inverse"), nb::arg("values").noconvert(),
            nb::arg("empty").noconvert(), nb::arg("ties").noconvert(),
            "skrank's one-pass kernel (_kernels._fast.evaluate_contiguous) in C++: returns -1 "
            "or the first bad row; writes values, empty and ties.");
}

}  // namespace

// a build for another instruction set (CMake's KC_MARCH) gets another name, so that the
// variants load side by side in one process
#if defined(KC_MARCH_NATIVE)
NB_MODULE(skrank_kc_cpp_native, mod) {
#elif defined(KC_MARCH_V3)
NB_MODULE(skrank_kc_cpp_v3, mod) {
#else
NB_MODULE(skrank_kc_cpp, mod) {
#endif
    mod.doc() = "Benchmark prototype: skrank's one-pass ranking kernel in C++ (nanobind).";
    mod.attr("SMALL_K") = SMALL_K;
    mod.attr("MAX_CANDIDATES") = MAX_CANDIDATES;
    const std::string nanobind_version = "nanobind " + std::to_string(NB_VERSION_MAJOR) + "." +
                                         std::to_string(NB_VERSION_MINOR) + "." +
                                         std::to_string(NB_VERSION_PATCH);
    mod.attr("build_info") = nb::make_tuple(nb::str(nanobind_version.c_str()),
                                            nb::str("compiler " __VERSION__), nb::str(KC_FLAGS));
    // no conversion of any array: labels int64 or float64, scores float64 or float32 (the
    // dtypes skrank.metrics._fast passes), outputs written in place
    def_overload<i64, double>(mod);
    def_overload<i64, float>(mod);
    def_overload<double, double>(mod);
    def_overload<double, float>(mod);
}
