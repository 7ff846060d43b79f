// stubjit device-side prelude: complex<float> and complex<double>, one definition
// for every backend (CUDA's cuComplex has functions, not operators; libcu++'s
// cuda::std::complex is not on NVRTC's path).
//
// Laid out as std::complex and C's and Fortran's complex types: the real part, then
// the imaginary part. Trivial, as float is: `complex<float> z;` is uninitialized,
// `complex<float> z{};` and `complex<float> z = 0;` are zero. Operators (+ - * / == !=) take a
// complex or a real of the same part type on either side (`2 * z`, `z / 3.0f`);
// real, imag, conj, norm and abs are found by argument-dependent lookup.
//
// Included in a stub only when its user code or its own code names it
// (src/codegen/prelude.cpp).
#ifndef STUBJIT_COMPLEX_H
#define STUBJIT_COMPLEX_H

#include "stubjit/config.h"

namespace stubjit {

// The part type as a parameter that is not deduced: `z * 2` converts 2 to z's part
// type rather than failing to deduce.
template <class T>
struct complex_part {
  using type = T;
};

template <class T>
struct complex {
  T re;
  T im;

  complex() = default;
  STUBJIT_HD constexpr complex(T real_part, T imaginary_part = T(0))  // NOLINT: implicit
      : re(real_part), im(imaginary_part) {}
  template <class U>
  STUBJIT_HD constexpr explicit complex(const complex<U>& other) : re(T(other.re)), im(T(other.im)) {}

  STUBJIT_HD constexpr T real() const { return re; }
  STUBJIT_HD constexpr T imag() const { return im; }

  STUBJIT_HD complex& operator+=(const complex& other) {
    re += other.re;
    im += other.im;
    return *this;
  }
  STUBJIT_HD complex& operator-=(const complex& other) {
    re -= other.re;
    im -= other.im;
    return *this;
  }
  STUBJIT_HD complex& operator*=(const complex& other) {
    const T r = re * other.re - im * other.im;
    im = re * other.im + im * other.re;
    re = r;
    return *this;
  }
  STUBJIT_HD complex& operator/=(const complex& other) {
    // Smith's algorithm: divide by the larger part of the divisor first, so that
    // squaring it cannot overflow or underflow where the quotient does not.
    const T c = other.re;
    const T d = other.im;
    const T abs_c = c < T(0) ? -c : c;
    const T abs_d = d < T(0) ? -d : d;
    T r;
    T i;
    if (abs_c >= abs_d) {
      const T ratio = d / c;
      const T denominator = c + d * ratio;
      r = (re + im * ratio) / denominator;
      i = (im - re * ratio) / denominator;
    } else {
      const T ratio = c / d;
      const T denominator = c * ratio + d;
      r = (re * ratio + im) / denominator;
      i = (im * ratio - re) / denominator;
    }
    re = r;
    im = i;
    return *this;
  }
  STUBJIT_HD complex& operator+=(T other) {
    re += other;
    return *this;
  }
  STUBJIT_HD complex& operator-=(T other) {
    re -= other;
    return *this;
  }
  STUBJIT_HD complex& operator*=(T other) {
    re *= other;
    im *= other;
    return *this;
  }
  STUBJIT_HD complex& operator/=(T other) {
    re /= other;
    im /= other;
    return *this;
  }
};

static_assert(sizeof(complex<float>) == 8 && sizeof(complex<double>) == 16,
              "complex is two parts, unpadded");

#define STUBJIT_COMPLEX_OPERATOR(op)                                                              \
  template <class T>                                                                              \
  STUBJIT_HD complex<T> operator op(complex<T> a, const complex<T>& b) {                         \
    return a op## = b;                                                                            \
  }                                                                                               \
  template <class T>                                                                              \
  STUBJIT_HD complex<T> operator op(complex<T> a, typename complex_part<T>::type b) {            \
    return a op## = b;                                                                            \
  }                                                                                               \
  template <class T>                                                                              \
  STUBJIT_HD complex<T> operator op(typename complex_part<T>::type a, const complex<T>& b) {      \
    return complex<T>(a) op## = b;                                                                \
  }
STUBJIT_COMPLEX_OPERATOR(+)
STUBJIT_COMPLEX_OPERATOR(-)
STUBJIT_COMPLEX_OPERATOR(*)
STUBJIT_COMPLEX_OPERATOR(/)
#undef STUBJIT_COMPLEX_OPERATOR

template <class T>
STUBJIT_HD complex<T> operator+(const complex<T>& a) {
  return a;
}
template <class T>
STUBJIT_HD complex<T> operator-(const complex<T>& a) {
  return complex<T>(-a.re, -a.im);
}
template <class T>
STUBJIT_HD bool operator==(const complex<T>& a, const complex<T>& b) {
  return a.re == b.re && a.im == b.im;
}
template <class T>
STUBJIT_HD bool operator!=(const complex<T>& a, const complex<T>& b) {
  return !(a == b);
}
template <class T>
STUBJIT_HD bool operator==(const complex<T>& a, typename complex_part<T>::type b) {
  return a == complex<T>(b);
}
template <class T>
STUBJIT_HD bool operator==(typename complex_part<T>::type a, const complex<T>& b) {
  return complex<T>(a) == b;
}
template <class T>
STUBJIT_HD bool operator!=(const complex<T>& a, typename complex_part<T>::type b) {
  return !(a == b);
}
template <class T>
STUBJIT_HD bool operator!=(typename complex_part<T>::type a, const complex<T>& b) {
  return !(a == b);
}

template <class T>
STUBJIT_HD T real(const complex<T>& z) {
  return z.re;
}
template <class T>
STUBJIT_HD T imag(const complex<T>& z) {
  return z.im;
}
template <class T>
STUBJIT_HD complex<T> conj(const complex<T>& z) {
  return complex<T>(z.re, -z.im);
}
// The squared magnitude (std::norm's meaning).
template <class T>
STUBJIT_HD T norm(const complex<T>& z) {
  return z.re * z.re + z.im * z.im;
}

#if defined(STUBJIT_DEVICE_COMPILER)
STUBJIT_HD float complex_sqrt(float x) { return sqrtf(x); }
STUBJIT_HD double complex_sqrt(double x) { return sqrt(x); }
#else
STUBJIT_HD float complex_sqrt(float x) { return __builtin_sqrtf(x); }
STUBJIT_HD double complex_sqrt(double x) { return __builtin_sqrt(x); }
#endif

// The magnitude, scaled by the larger part so that the squares cannot overflow. As
// hypot: infinite when a part is, even if the other is NaN.
template <class T>
STUBJIT_HD T abs(const complex<T>& z) {
  const T a = z.re < T(0) ? -z.re : z.re;
  const T b = z.im < T(0) ? -z.im : z.im;
  if (a == a && a - a != T(0)) return a;  // infinite (x - x is NaN for inf and NaN)
  if (b == b && b - b != T(0)) return b;
  const T large = a < b ? b : a;
  const T small = a < b ? a : b;
  if (large == T(0) || large - large != T(0)) return large + small;  // zero or NaN
  const T ratio = small / large;
  return large * complex_sqrt(T(1) + ratio * ratio);
}

}  // namespace stubjit

#endif  // STUBJIT_COMPLEX_H
