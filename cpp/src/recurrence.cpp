#include "ropelab/recurrence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ropelab/montecarlo.hpp"

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

LinearMode parse_linear_mode(const std::string& name) {
  if (name == "recurrent") return LinearMode::recurrent;
  if (name == "unrolled") return LinearMode::unrolled;
  throw std::invalid_argument("mode must be 'recurrent' or 'unrolled', got '" + name + "'");
}

ProductStart parse_product_start(const std::string& name) {
  if (name == "tau+1") return ProductStart::tau_plus_1;
  if (name == "tau") return ProductStart::tau;
  throw std::invalid_argument("product_start must be 'tau+1' or 'tau', got '" + name + "'");
}

SelectiveMode parse_selective_mode(const std::string& name) {
  if (name == "prerotated") return SelectiveMode::prerotated;
  if (name == "recurrent") return SelectiveMode::recurrent;
  throw std::invalid_argument("mode must be 'prerotated' or 'recurrent', got '" + name + "'");
}

RffMode parse_rff_mode(const std::string& name) {
  if (name == "direct") return RffMode::direct;
  if (name == "recurrent") return RffMode::recurrent;
  throw std::invalid_argument("mode must be 'direct' or 'recurrent', got '" + name + "'");
}

Decay parse_decay(const std::string& name) {
  if (name == "alibi") return Decay::alibi;
  if (name == "fox") return Decay::fox;
  if (name == "cosformer") return Decay::cosformer;
  throw std::invalid_argument("kind must be 'alibi', 'fox' or 'cosformer', got '" + name + "'");
}

DecayMode parse_decay_mode(const std::string& name) {
  if (name == "direct") return DecayMode::direct;
  if (name == "recurrent") return DecayMode::recurrent;
  throw std::invalid_argument("mode must be 'direct' or 'recurrent', got '" + name + "'");
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

void selective_rope_attention(const Sequence& s, const double* psi, const Gates& gates,
                              rotary::Layout layout, SelectiveMode mode, double* out,
                              const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv, h = d / 2;
  // Channel index of each pair's two members, precomputed once.
  std::vector<std::size_t> c0(h), c1(h);
  for (std::size_t i = 0; i < h; ++i) rotary::pair_channels(layout, d, i, c0[i], c1[i]);
  std::vector<double> S(dv * d, 0.0);
  std::vector<double> lam(d, 1.0);
  std::vector<double> cs(h), sn(h), cs_prev(h, 1.0), sn_prev(h, 0.0);
  std::vector<double> qp(d), kp(d);
  // B holds A^eff_t = C_{t−1}ᵀ Λ_t C_t as one 2×2 block per pair: (b00, b01, b10, b11).
  std::vector<double> B(4 * h);
  const bool gated = gates.width != 0;
  for (std::size_t t = 0; t < T; ++t) {
      poll(cancel);
    const double* qt = s.q + t * d;
    const double* kt = s.k + t * d;
    const double* vt = s.v + t * dv;
    const double* pt = psi + t * h;
    for (std::size_t i = 0; i < h; ++i) {
      cs[i] = std::cos(pt[i]);
      sn[i] = std::sin(pt[i]);
    }
    if (gated) {
      for (std::size_t i = 0; i < h; ++i) {
        lam[c0[i]] = gate_value(gates, t, c0[i], i);
        lam[c1[i]] = gate_value(gates, t, c1[i], i);
      }
    }
    if (mode == SelectiveMode::prerotated) {
      for (std::size_t i = 0; i < h; ++i) {
        const double q0 = qt[c0[i]], q1 = qt[c1[i]], k0 = kt[c0[i]], k1 = kt[c1[i]];
        qp[c0[i]] = cs[i] * q0 - sn[i] * q1;
        qp[c1[i]] = sn[i] * q0 + cs[i] * q1;
        kp[c0[i]] = cs[i] * k0 - sn[i] * k1;
        kp[c1[i]] = sn[i] * k0 + cs[i] * k1;
      }
      // One pass over Ŝ per step: Ŝ ← Ŝ Λ_t + v k'ᵀ and o = Ŝ q' fused row by row.
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sr = S.data() + r * d;
        const double vr = vt[r];
        double o = 0.0;
        if (gated) {
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
        out[t * dv + r] = o;
      }
    } else {
      for (std::size_t i = 0; i < h; ++i) {
        // R(ψ_{t−1})ᵀ diag(λa, λb) R(ψ_t), written out.
        const double cp = cs_prev[i], sp = sn_prev[i], c = cs[i], sv = sn[i];
        const double la = lam[c0[i]], lb = lam[c1[i]];
        B[4 * i + 0] = cp * la * c + sp * lb * sv;
        B[4 * i + 1] = -cp * la * sv + sp * lb * c;
        B[4 * i + 2] = -sp * la * c + cp * lb * sv;
        B[4 * i + 3] = sp * la * sv + cp * lb * c;
      }
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sr = S.data() + r * d;
        const double vr = vt[r];
        double o = 0.0;
        for (std::size_t i = 0; i < h; ++i) {
          const std::size_t a = c0[i], b = c1[i];
          const double x0 = Sr[a], x1 = Sr[b];
          const double n0 = x0 * B[4 * i + 0] + x1 * B[4 * i + 2] + vr * kt[a];
          const double n1 = x0 * B[4 * i + 1] + x1 * B[4 * i + 3] + vr * kt[b];
          Sr[a] = n0;
          Sr[b] = n1;
          o += n0 * qt[a] + n1 * qt[b];
        }
        out[t * dv + r] = o;
      }
      cs_prev.swap(cs);
      sn_prev.swap(sn);
    }
  }
}

void rff_attention(const Sequence& s, const double* omega, std::size_t D, RffMode mode,
                   bool amplitude, std::complex<double>* out,
                   const std::atomic<bool>* cancel) {
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

void decayed_attention(const Sequence& s, Decay kind, double param, const double* forget,
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
        if (kind == Decay::fox) fox_product *= forget[tau];
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
      const double g = kind == Decay::alibi ? alibi_decay : forget[t];
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

void softmax_attention(const Sequence& s, const double* psi, rotary::Layout layout, double scale,
                       bool causal, double* out, const std::atomic<bool>* cancel) {
  const std::size_t T = s.T, d = s.d, dv = s.dv;
  std::vector<double> qr(s.q, s.q + T * d), kr(s.k, s.k + T * d);
  if (psi != nullptr) {
    rotary::rotate(s.q, psi, T, T, d, layout, qr.data(), 1);
    rotary::rotate(s.k, psi, T, T, d, layout, kr.data(), 1);
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
