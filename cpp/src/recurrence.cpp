#include "ropelab/recurrence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"

namespace ropelab::recurrence {

namespace {
constexpr double kPi = 3.14159265358979323846;

double dot(const double* a, const double* b, std::size_t n) {
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void poll(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// y = A x for a row-major n×n matrix A.
void matvec(const double* A, const double* x, std::size_t n, double* y) {
  for (std::size_t r = 0; r < n; ++r) y[r] = dot(A + r * n, x, n);
}
}  // namespace

const std::vector<std::string>& linear_mode_names() {
  static const std::vector<std::string> n{"recurrent", "unrolled"};
  return n;
}
const std::vector<std::string>& product_start_names() {
  static const std::vector<std::string> n{"tau+1", "tau"};
  return n;
}
const std::vector<std::string>& selective_mode_names() {
  static const std::vector<std::string> n{"prerotated", "recurrent"};
  return n;
}
const std::vector<std::string>& direct_recurrent_names() {
  static const std::vector<std::string> n{"direct", "recurrent"};
  return n;
}

const std::vector<std::string>& decay_names() {
  static const std::vector<std::string> n{"alibi", "fox", "cosformer"};
  return n;
}

LinearMode parse_linear_mode(const std::string& name) {
  return names::parse<LinearMode>(linear_mode_names(), name, "mode");
}

ProductStart parse_product_start(const std::string& name) {
  return names::parse<ProductStart>(product_start_names(), name, "product_start");
}

SelectiveMode parse_selective_mode(const std::string& name) {
  return names::parse<SelectiveMode>(selective_mode_names(), name, "mode");
}

RffMode parse_rff_mode(const std::string& name) {
  return names::parse<RffMode>(direct_recurrent_names(), name, "mode");
}

Decay parse_decay(const std::string& name) {
  return names::parse<Decay>(decay_names(), name, "kind");
}

DecayMode parse_decay_mode(const std::string& name) {
  return names::parse<DecayMode>(direct_recurrent_names(), name, "mode");
}

void linear_attention(const Sequence& s, const double* A, LinearMode mode, ProductStart start,
                      double* out, const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv;
  if (mode == LinearMode::recurrent) {
    std::vector<double> S(dv * d, 0.0), row(d);
    for (std::size_t t = 0; t < T; ++t) {
      poll(cancel);
      const double* qt = s.q + t * d;
      const double* kt = s.k + t * d;
      const double* vt = s.v + t * dv;
      const double* At = A != nullptr ? A + t * d * d : nullptr;
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sr = S.data() + r * d;
        if (At != nullptr) {  // row r of S A_t
          std::fill(row.begin(), row.end(), 0.0);
          for (std::size_t m = 0; m < d; ++m) {
            const double srm = Sr[m];
            const double* Am = At + m * d;
            for (std::size_t c = 0; c < d; ++c) row[c] += srm * Am[c];
          }
          std::copy(row.begin(), row.end(), Sr);
        }
        double o = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          Sr[c] += vt[r] * kt[c];
          o += Sr[c] * qt[c];
        }
        out[t * dv + r] = o;
      }
    }
    return;
  }
  // Unrolled: u = (A_{start}⋯A_t) q_t built right to left as τ decreases; O(T² d²).
  std::vector<double> u(d), tmp(d);
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    double* ot = out + t * dv;
    std::fill(ot, ot + dv, 0.0);
    std::copy(s.q + t * d, s.q + (t + 1) * d, u.begin());
    for (std::size_t tau = t + 1; tau-- > 0;) {
      if (A != nullptr && start == ProductStart::tau) {
        matvec(A + tau * d * d, u.data(), d, tmp.data());
        u.swap(tmp);
      }
      const double w = dot(s.k + tau * d, u.data(), d);
      const double* vtau = s.v + tau * dv;
      for (std::size_t r = 0; r < dv; ++r) ot[r] += w * vtau[r];
      if (A != nullptr && start == ProductStart::tau_plus_1 && tau > 0) {
        matvec(A + tau * d * d, u.data(), d, tmp.data());
        u.swap(tmp);
      }
    }
  }
}

namespace detail {

void rotate_pairs(const double* x, const double* cs, const double* sn, const std::size_t* c0,
                  const std::size_t* c1, std::size_t h, double* out) {
  for (std::size_t i = 0; i < h; ++i) {
    const double x0 = x[c0[i]], x1 = x[c1[i]];
    out[c0[i]] = cs[i] * x0 - sn[i] * x1;
    out[c1[i]] = sn[i] * x0 + cs[i] * x1;
  }
}

void prerotated_update(double* S, std::size_t d, std::size_t dv, const double* lam, const double* v,
                       const double* kp, const double* qp, double* out) {
  // One pass over Ŝ per step: Ŝ ← Ŝ Λ_t + v k'ᵀ and o = Ŝ q' fused row by row.
  for (std::size_t r = 0; r < dv; ++r) {
    double* Sr = S + r * d;
    const double vr = v[r];
    double o = 0.0;
    if (lam != nullptr) {
      for (std::size_t c = 0; c < d; ++c) {
        Sr[c] = Sr[c] * lam[c] + vr * kp[c];
        o += Sr[c] * qp[c];
      }
    } else {
      for (std::size_t c = 0; c < d; ++c) {
        Sr[c] += vr * kp[c];
        o += Sr[c] * qp[c];
      }
    }
    out[r] = o;
  }
}

void rotating_transition_blocks(const double* cs_prev, const double* sn_prev, const double* cs,
                                const double* sn, const double* lam, const std::size_t* c0,
                                const std::size_t* c1, std::size_t h, double* B) {
  for (std::size_t i = 0; i < h; ++i) {
    // R(ψ_{t−1})ᵀ diag(λa, λb) R(ψ_t), written out.
    const double cp = cs_prev[i], sp = sn_prev[i], c = cs[i], sv = sn[i];
    const double la = lam[c0[i]], lb = lam[c1[i]];
    B[4 * i + 0] = cp * la * c + sp * lb * sv;
    B[4 * i + 1] = -cp * la * sv + sp * lb * c;
    B[4 * i + 2] = -sp * la * c + cp * lb * sv;
    B[4 * i + 3] = sp * la * sv + cp * lb * c;
  }
}

void rotating_update(double* S, std::size_t d, std::size_t dv, const double* B,
                     const std::size_t* c0, const std::size_t* c1, std::size_t h, const double* v,
                     const double* k, const double* q, double* out) {
  // S ← S A^eff_t + v kᵀ and o = S q, pair by pair (A^eff_t is block diagonal).
  for (std::size_t r = 0; r < dv; ++r) {
    double* Sr = S + r * d;
    const double vr = v[r];
    double o = 0.0;
    for (std::size_t i = 0; i < h; ++i) {
      const std::size_t a = c0[i], b = c1[i];
      const double x0 = Sr[a], x1 = Sr[b];
      const double n0 = x0 * B[4 * i + 0] + x1 * B[4 * i + 2] + vr * k[a];
      const double n1 = x0 * B[4 * i + 1] + x1 * B[4 * i + 3] + vr * k[b];
      Sr[a] = n0;
      Sr[b] = n1;
      o += n0 * q[a] + n1 * q[b];
    }
    out[r] = o;
  }
}

}  // namespace detail

namespace {

/// State of the selective-RoPE recurrence across steps: the d×dv state (Ŝ or S), the phases'
/// cos/sin at this and the previous step, the gates Λ_t and the per-step scratch.
struct SelectiveState {
  std::size_t d, dv, h;
  std::vector<std::size_t> c0, c1;  ///< channels of each pair's two members
  std::vector<double> S, lam, cs, sn, cs_prev, sn_prev, qp, kp;
  /// A^eff_t = C_{t−1}ᵀ Λ_t C_t as one 2×2 block per pair: (b00, b01, b10, b11).
  std::vector<double> B;

  SelectiveState(std::size_t d_, std::size_t dv_, rotary::Layout layout)
      : d(d_),
        dv(dv_),
        h(d_ / 2),
        c0(h),
        c1(h),
        S(dv_ * d_, 0.0),
        lam(d_, 1.0),
        cs(h),
        sn(h),
        cs_prev(h, 1.0),
        sn_prev(h, 0.0),
        qp(d_),
        kp(d_),
        B(4 * h) {
    for (std::size_t i = 0; i < h; ++i) rotary::pair_channels(layout, d, i, c0[i], c1[i]);
  }

  /// cos/sin of step t's phases and, when gated, the decays Λ_t.
  void load_step(const double* pt, const Gates& gates, std::size_t t) {
    for (std::size_t i = 0; i < h; ++i) {
      cs[i] = std::cos(pt[i]);
      sn[i] = std::sin(pt[i]);
    }
    if (gates.width == 0) return;
    for (std::size_t i = 0; i < h; ++i) {
      lam[c0[i]] = gate_value(gates, t, c0[i], i);
      lam[c1[i]] = gate_value(gates, t, c1[i], i);
    }
  }

  /// Pre-rotated step: Ŝ_t = Ŝ_{t−1} Λ_t + v_t (C_t k_t)ᵀ, o_t = Ŝ_t C_t q_t.
  void prerotated_step(const double* q, const double* k, const double* v, bool gated, double* out) {
    detail::rotate_pairs(q, cs.data(), sn.data(), c0.data(), c1.data(), h, qp.data());
    detail::rotate_pairs(k, cs.data(), sn.data(), c0.data(), c1.data(), h, kp.data());
    detail::prerotated_update(S.data(), d, dv, gated ? lam.data() : nullptr, v, kp.data(),
                              qp.data(), out);
  }

  /// Rotating-transition step: S_t = S_{t−1} C_{t−1}ᵀ Λ_t C_t + v_t k_tᵀ, o_t = S_t q_t.
  void rotating_step(const double* q, const double* k, const double* v, double* out) {
    detail::rotating_transition_blocks(cs_prev.data(), sn_prev.data(), cs.data(), sn.data(),
                                       lam.data(), c0.data(), c1.data(), h, B.data());
    detail::rotating_update(S.data(), d, dv, B.data(), c0.data(), c1.data(), h, v, k, q, out);
    cs_prev.swap(cs);
    sn_prev.swap(sn);
  }
};

}  // namespace

void selective_rope_attention(const Sequence& s, const double* angles, const Gates& gates,
                              rotary::Layout layout, SelectiveMode mode, double* out,
                              const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv, h = d / 2;
  SelectiveState st(d, dv, layout);
  const bool gated = gates.width != 0;
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    const double* qt = s.q + t * d;
    const double* kt = s.k + t * d;
    const double* vt = s.v + t * dv;
    st.load_step(angles + t * h, gates, t);
    if (mode == SelectiveMode::prerotated) {
      st.prerotated_step(qt, kt, vt, gated, out + t * dv);
    } else {
      st.rotating_step(qt, kt, vt, out + t * dv);
    }
  }
}

void rff_attention(const Sequence& s, const double* omega, std::size_t D, RffMode mode,
                   bool amplitude, std::complex<double>* out, const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv;
  // Projections a[t, j] = ω_j·q_t, b[t, j] = ω_j·k_t and squared norms.
  std::vector<double> a(T * D), b(T * D), nq(T), nk(T);
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    nq[t] = dot(s.q + t * d, s.q + t * d, d);
    nk[t] = dot(s.k + t * d, s.k + t * d, d);
    for (std::size_t j = 0; j < D; ++j) {
      a[t * D + j] = dot(omega + j * d, s.q + t * d, d);
      b[t * D + j] = dot(omega + j * d, s.k + t * d, d);
    }
  }
  if (mode == RffMode::direct) {
    for (std::size_t t = 0; t < T; ++t) {
      poll(cancel);
      for (std::size_t j = 0; j < D; ++j) {
        std::complex<double>* h = out + (t * D + j) * dv;
        std::fill(h, h + dv, std::complex<double>(0.0, 0.0));
        for (std::size_t tau = 0; tau <= t; ++tau) {
          const std::complex<double> w =
              std::polar(std::exp(0.5 * (nq[t] + nk[tau])), a[t * D + j] - b[tau * D + j]);
          const double* vtau = s.v + tau * dv;
          for (std::size_t r = 0; r < dv; ++r) h[r] += w * vtau[r];
        }
      }
    }
    return;
  }
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    for (std::size_t j = 0; j < D; ++j) {
      std::complex<double>* h = out + (t * D + j) * dv;
      const std::complex<double> inject =
          std::polar(std::exp(0.5 * (nq[t] + nk[t])), a[t * D + j] - b[t * D + j]);
      const double* vt = s.v + t * dv;
      if (t == 0) {
        for (std::size_t r = 0; r < dv; ++r) h[r] = inject * vt[r];
        continue;
      }
      const double amp = amplitude ? std::exp(0.5 * (nq[t] - nq[t - 1])) : 1.0;
      const std::complex<double> carry = std::polar(amp, a[t * D + j] - a[(t - 1) * D + j]);
      const std::complex<double>* hp = out + ((t - 1) * D + j) * dv;
      for (std::size_t r = 0; r < dv; ++r) h[r] = carry * hp[r] + inject * vt[r];
    }
  }
}

void rff_increment_product(const double* q, std::size_t T, std::size_t d, const double* omega,
                           std::size_t D, std::size_t tau, std::complex<double>* out) {
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = 0; j < D; ++j) {
      if (t <= tau) {
        out[t * D + j] = 1.0;
        continue;
      }
      const double inc = dot(omega + j * d, q + t * d, d) - dot(omega + j * d, q + (t - 1) * d, d);
      out[t * D + j] = out[(t - 1) * D + j] * std::polar(1.0, inc);
    }
  }
}

void decayed_attention(const Sequence& s, Decay kind, double param, const double* gates,
                       DecayMode mode, double* out, const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv;
  if (mode == DecayMode::direct) {
    for (std::size_t t = 0; t < T; ++t) {
      poll(cancel);
      double* ot = out + t * dv;
      std::fill(ot, ot + dv, 0.0);
      double fox_product = 1.0;  // Π_{κ=τ+1}^{t} f_κ, grown as τ decreases
      for (std::size_t tau = t + 1; tau-- > 0;) {
        const double lag = static_cast<double>(t - tau);
        double w = 1.0;
        switch (kind) {
          case Decay::alibi:
            w = std::exp(-param * lag);  // the logit bias −m(t−τ), exponentiated
            break;
          case Decay::fox:
            w = fox_product;
            break;
          case Decay::cosformer:
            w = std::cos(kPi * lag / (2.0 * param));
            break;
        }
        const double sc = w * dot(s.q + t * d, s.k + tau * d, d);
        const double* vtau = s.v + tau * dv;
        for (std::size_t r = 0; r < dv; ++r) ot[r] += sc * vtau[r];
        if (kind == Decay::fox) fox_product *= gates[tau];
      }
    }
    return;
  }
  const bool cos_sin = kind == Decay::cosformer;
  std::vector<double> S(dv * d, 0.0), Ss(cos_sin ? dv * d : 0, 0.0);
  const double alibi_decay = kind == Decay::alibi ? std::exp(-param) : 1.0;
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    const double* qt = s.q + t * d;
    const double* kt = s.k + t * d;
    const double* vt = s.v + t * dv;
    if (!cos_sin) {
      const double g = kind == Decay::alibi ? alibi_decay : gates[t];
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sr = S.data() + r * d;
        double o = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          Sr[c] = g * Sr[c] + vt[r] * kt[c];
          o += Sr[c] * qt[c];
        }
        out[t * dv + r] = o;
      }
    } else {
      const double ang = kPi * static_cast<double>(t) / (2.0 * param);
      const double ct = std::cos(ang), st = std::sin(ang);
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sc = S.data() + r * d;
        double* Sn = Ss.data() + r * d;
        double oc = 0.0, os = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          Sc[c] += ct * vt[r] * kt[c];
          Sn[c] += st * vt[r] * kt[c];
          oc += Sc[c] * qt[c];
          os += Sn[c] * qt[c];
        }
        out[t * dv + r] = ct * oc + st * os;
      }
    }
  }
}

void softmax_attention(const Sequence& s, const double* angles, rotary::Layout layout, double scale,
                       bool causal, double* out, const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv;
  std::vector<double> qr(s.q, s.q + T * d), kr(s.k, s.k + T * d);
  if (angles != nullptr) {
    rotary::rotate(s.q, angles, T, T, d, layout, qr.data(), 1);
    rotary::rotate(s.k, angles, T, T, d, layout, kr.data(), 1);
  }
  std::vector<double> logits(T);
  for (std::size_t t = 0; t < T; ++t) {
    poll(cancel);
    const std::size_t n = causal ? t + 1 : T;
    double mx = -std::numeric_limits<double>::infinity();
    for (std::size_t tau = 0; tau < n; ++tau) {
      logits[tau] = scale * dot(qr.data() + t * d, kr.data() + tau * d, d);
      mx = std::max(mx, logits[tau]);
    }
    double z = 0.0;
    double* ot = out + t * dv;
    std::fill(ot, ot + dv, 0.0);
    for (std::size_t tau = 0; tau < n; ++tau) {
      const double w = std::exp(logits[tau] - mx);  // max subtracted: no overflow
      z += w;
      const double* vtau = s.v + tau * dv;
      for (std::size_t r = 0; r < dv; ++r) ot[r] += w * vtau[r];
    }
    for (std::size_t r = 0; r < dv; ++r) ot[r] /= z;
  }
}

}  // namespace ropelab::recurrence
