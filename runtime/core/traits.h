// The few type traits and utilities the core and the kernels need, defined here
// because <type_traits>, <utility> and <new> belong to the hosted C++ library: an
// Android or bare-metal build compiled with -ffreestanding has none of them.
#pragma once

#include <stddef.h>

namespace tailor {

template <bool B, typename T = void>
struct enable_if {};
template <typename T>
struct enable_if<true, T> {
  using type = T;
};
template <bool B, typename T = void>
using enable_if_t = typename enable_if<B, T>::type;

template <bool B, typename T, typename F>
struct conditional {
  using type = T;
};
template <typename T, typename F>
struct conditional<false, T, F> {
  using type = F;
};
template <bool B, typename T, typename F>
using conditional_t = typename conditional<B, T, F>::type;

template <typename A, typename B>
inline constexpr bool is_same_v = false;
template <typename A>
inline constexpr bool is_same_v<A, A> = true;

template <typename T>
struct remove_cv {
  using type = T;
};
template <typename T>
struct remove_cv<const T> {
  using type = T;
};
template <typename T>
struct remove_cv<volatile T> {
  using type = T;
};
template <typename T>
struct remove_cv<const volatile T> {
  using type = T;
};
template <typename T>
using remove_cv_t = typename remove_cv<T>::type;

template <typename T>
struct remove_reference {
  using type = T;
};
template <typename T>
struct remove_reference<T&> {
  using type = T;
};
template <typename T>
struct remove_reference<T&&> {
  using type = T;
};
template <typename T>
using remove_reference_t = typename remove_reference<T>::type;

namespace internal {
template <typename T>
inline constexpr bool is_integral_raw = false;
template <> inline constexpr bool is_integral_raw<bool> = true;
template <> inline constexpr bool is_integral_raw<char> = true;
template <> inline constexpr bool is_integral_raw<signed char> = true;
template <> inline constexpr bool is_integral_raw<unsigned char> = true;
template <> inline constexpr bool is_integral_raw<char16_t> = true;
template <> inline constexpr bool is_integral_raw<char32_t> = true;
template <> inline constexpr bool is_integral_raw<wchar_t> = true;
template <> inline constexpr bool is_integral_raw<short> = true;
template <> inline constexpr bool is_integral_raw<unsigned short> = true;
template <> inline constexpr bool is_integral_raw<int> = true;
template <> inline constexpr bool is_integral_raw<unsigned int> = true;
template <> inline constexpr bool is_integral_raw<long> = true;
template <> inline constexpr bool is_integral_raw<unsigned long> = true;
template <> inline constexpr bool is_integral_raw<long long> = true;
template <> inline constexpr bool is_integral_raw<unsigned long long> = true;

template <typename T>
inline constexpr bool is_floating_point_raw = false;
template <> inline constexpr bool is_floating_point_raw<float> = true;
template <> inline constexpr bool is_floating_point_raw<double> = true;
template <> inline constexpr bool is_floating_point_raw<long double> = true;
}  // namespace internal

/// As std::is_integral_v / std::is_floating_point_v (cv-qualifiers ignored).
template <typename T>
inline constexpr bool is_integral_v = internal::is_integral_raw<remove_cv_t<T>>;
template <typename T>
inline constexpr bool is_floating_point_v = internal::is_floating_point_raw<remove_cv_t<T>>;

/// As std::is_trivially_destructible_v, through the compiler's builtin (clang deprecates
/// the older spelling GCC has).
template <typename T>
#if defined(__clang__)
inline constexpr bool is_trivially_destructible_v = __is_trivially_destructible(T);
#else
inline constexpr bool is_trivially_destructible_v = __has_trivial_destructor(T);
#endif

/// As std::move.
template <typename T>
constexpr remove_reference_t<T>&& move(T&& value) noexcept {
  return static_cast<remove_reference_t<T>&&>(value);
}

/// As std::forward.
template <typename T>
constexpr T&& forward(remove_reference_t<T>& value) noexcept {
  return static_cast<T&&>(value);
}

namespace internal {
/// Selects the placement form of operator new below, which cannot clash with the
/// standard one from <new> when a hosted file includes both.
struct PlacementTag {};
}  // namespace internal

}  // namespace tailor

/// `new (tailor::internal::PlacementTag{}, p) T(...)` constructs a T at p.
inline void* operator new(size_t, tailor::internal::PlacementTag, void* where) noexcept {
  return where;
}
