#pragma once
/// \file fuzz_bytes.hpp
/// The fuzz input as a stream of values: each take<T>() consumes sizeof(T) bytes (zero-filled
/// once the input runs out), so a harness reads its parameters in a fixed order.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ropelab::fuzz {

struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  template <class T>
  T take() {
    T v{};
    const std::size_t k = n < sizeof(T) ? n : sizeof(T);
    if (k > 0) std::memcpy(&v, p, k);  // (memcpy from a null pointer is undefined even for 0 bytes)
    p += k;
    n -= k;
    return v;
  }
  /// A raw double (any bit pattern) or a small value in [−4, 4) in steps of 1/32.
  double value(bool raw) {
    return raw ? take<double>() : static_cast<double>(take<std::int8_t>()) / 32.0;
  }
};

}  // namespace ropelab::fuzz
