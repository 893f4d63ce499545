/*=========================================================================
 *
 *  Copyright CudaCommon contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#ifndef itkCudaFunctors_h
#define itkCudaFunctors_h

/** \file itkCudaFunctors.h
 * \brief The pixel functors of CudaCommon's element-wise filters, for the
 * host compiler and nvcc alike (no ITK headers): each computes what the
 * functor of the ITK filter it stands for computes, bit for bit.
 *
 * A functor of your own has the same shape: a copyable struct (its members
 * are the filter's parameters, copied to the kernel by value) whose
 * `__host__ __device__ TOutput operator()(TInput) const` (two arguments for
 * a binary filter) computes one output pixel. See
 * itkCudaUnaryFunctorImageFilter.h and itkCudaFunctorKernels.cuh.
 * \ingroup CudaCommon
 */

#include <cuda_runtime_api.h> // __host__, __device__

#include <cmath>

#include <cstdint>
#include <type_traits>

namespace itk
{
/** NumericTraits<T>::max() for the scalars, on the device too. */
template <typename T>
__host__ __device__ constexpr T
CudaNumericMaximum()
{
  if constexpr (std::is_same<T, float>::value)
  {
    return 3.402823466e+38f;
  }
  else if constexpr (std::is_floating_point<T>::value)
  {
    return 1.7976931348623157e+308;
  }
  else
  {
    using Unsigned = typename std::make_unsigned<T>::type;
    const Unsigned all = static_cast<Unsigned>(~Unsigned(0));
    return static_cast<T>(std::is_signed<T>::value ? static_cast<Unsigned>(all >> 1) : all);
  }
}

/** NumericTraits<T>::NonpositiveMin() for the scalars, on the device too:
 * the lowest value of an integer, -max() of a floating-point type. */
template <typename T>
__host__ __device__ constexpr T
CudaNumericNonpositiveMinimum()
{
  if constexpr (std::is_floating_point<T>::value)
  {
    return -CudaNumericMaximum<T>();
  }
  else if constexpr (std::is_signed<T>::value)
  {
    return static_cast<T>(-CudaNumericMaximum<T>() - 1);
  }
  else
  {
    return T(0);
  }
}

/** \class CudaSquareFunctor
 * \brief ITK's Functor::Square: the input converted to its real type
 * (NumericTraits<T>::RealType, double for integers), squared, converted to
 * the output type.
 * \ingroup CudaCommon */
template <typename TInput, typename TOutput = TInput>
struct CudaSquareFunctor
{
  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    if constexpr (std::is_integral<TInput>::value && std::is_integral<TOutput>::value && sizeof(TInput) <= 2 &&
                  sizeof(TOutput) <= sizeof(TInput))
    {
      // The square of an 8- or 16-bit integer is exact in 32 bits, as it is
      // in double, and keeping its low bits gives what the conversion of the
      // double to a narrow integer gives (cvt.rzi then a narrow store): the
      // same result for every input without two 64-bit conversions per pixel
      // (too slow on sm_90 for 1-byte pixels at full memory bandwidth).
      const uint32_t value = static_cast<uint32_t>(pixel);
      return static_cast<TOutput>(value * value);
    }
    else
    {
      using RealType = typename std::conditional<std::is_floating_point<TInput>::value, TInput, double>::type;
      const RealType value = static_cast<RealType>(pixel);
      return static_cast<TOutput>(value * value);
    }
  }
};

/** \class CudaAbsFunctor
 * \brief ITK's Functor::Abs: itk::Math::abs of the input converted to the
 * output type, as the ITK release in use computes it. In both, `signed char`
 * and `short` have an absolute value of the unsigned type of their size (so
 * that of the most negative value is positive) and plain `char` is
 * reinterpreted as `unsigned char`. ITK 5.2 (itk::Math::abs from vnl_math)
 * gives `int` and wider an unsigned absolute value too, and floating-point
 * values `x < 0 ? -x : x` (-0 and NaNs keep their sign); later releases
 * (VLikeStdAbs, std::abs) give `int` and wider one of their own type (the
 * most negative value stays negative) and floating-point values lose their
 * sign bit. CudaAbsImageFilter picks the variant of the ITK it is compiled
 * with (CudaITKMathAbsIsStdAbs).
 * \ingroup CudaCommon */
template <typename TInput, typename TOutput = TInput, bool VLikeStdAbs = true>
struct CudaAbsFunctor
{
  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    if constexpr (std::is_floating_point<TInput>::value && VLikeStdAbs)
    {
      if constexpr (std::is_same<TInput, float>::value)
      {
        return static_cast<TOutput>(fabsf(pixel));
      }
      else
      {
        return static_cast<TOutput>(fabs(static_cast<double>(pixel)));
      }
    }
    else if constexpr (std::is_floating_point<TInput>::value)
    {
      return static_cast<TOutput>(pixel < TInput(0) ? -pixel : pixel);
    }
    else if constexpr (std::is_same<TInput, char>::value)
    {
      return static_cast<TOutput>(static_cast<unsigned char>(pixel));
    }
    else if constexpr (std::is_signed<TInput>::value)
    {
      using Unsigned = typename std::make_unsigned<TInput>::type;
      // The negation in the unsigned type: defined for the most negative value.
      const Unsigned magnitude =
        pixel < 0 ? static_cast<Unsigned>(Unsigned(0) - static_cast<Unsigned>(pixel)) : static_cast<Unsigned>(pixel);
      using Result = typename std::conditional<(sizeof(TInput) < sizeof(int) || !VLikeStdAbs), Unsigned, TInput>::type;
      return static_cast<TOutput>(static_cast<Result>(magnitude));
    }
    else
    {
      return static_cast<TOutput>(pixel);
    }
  }
};

/** The arithmetic of ITK's Add2, Sub2 and Mult functors. */
enum class CudaArithmetic
{
  Add,
  Subtract,
  Multiply
};

/** `first` op `second` in C++'s arithmetic (the usual promotions: integers
 * narrower than int as int, float with float in float), as ITK's functors
 * compute it. A signed integer result that overflows wraps around (undefined
 * behaviour in ITK's functors, which wrap too on the usual hardware): it is
 * taken in the unsigned type, which is defined. */
template <CudaArithmetic VOperation, typename TInput1, typename TInput2>
__host__ __device__ auto
CudaWrappingArithmetic(TInput1 first, TInput2 second) -> decltype(first + second)
{
  using Result = decltype(first + second);
  if constexpr (std::is_integral<Result>::value && std::is_signed<Result>::value)
  {
    using Unsigned = typename std::make_unsigned<Result>::type;
    const auto a = static_cast<Unsigned>(static_cast<Result>(first));
    const auto b = static_cast<Unsigned>(static_cast<Result>(second));
    return static_cast<Result>(static_cast<Unsigned>(CudaWrappingArithmetic<VOperation>(a, b)));
  }
  else if constexpr (VOperation == CudaArithmetic::Add)
  {
    return first + second;
  }
  else if constexpr (VOperation == CudaArithmetic::Subtract)
  {
    return first - second;
  }
  else
  {
    return first * second;
  }
}

/** \class CudaAddFunctor
 * \brief ITK's Functor::Add2: the sum of the inputs in C++'s arithmetic,
 * converted to the output type (CudaWrappingArithmetic()).
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaAddFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    return static_cast<TOutput>(CudaWrappingArithmetic<CudaArithmetic::Add>(first, second));
  }
};

/** \class CudaSubtractFunctor
 * \brief ITK's Functor::Sub2: the difference of the inputs in C++'s
 * arithmetic, converted to the output type (CudaWrappingArithmetic()).
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaSubtractFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    return static_cast<TOutput>(CudaWrappingArithmetic<CudaArithmetic::Subtract>(first, second));
  }
};

/** \class CudaMultiplyFunctor
 * \brief ITK's Functor::Mult: the product of the inputs in C++'s
 * arithmetic, converted to the output type (CudaWrappingArithmetic()); one
 * rounding for floating point, as on the CPU.
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaMultiplyFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    return static_cast<TOutput>(CudaWrappingArithmetic<CudaArithmetic::Multiply>(first, second));
  }
};
/** \class CudaMaximumFunctor
 * \brief ITK's Functor::Maximum: the first input where it is greater than the
 * second, else the second (so a NaN second input wins, a NaN first loses),
 * converted to the output type.
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaMaximumFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    return first > second ? static_cast<TOutput>(first) : static_cast<TOutput>(second);
  }
};

/** \class CudaMinimumFunctor
 * \brief ITK's Functor::Minimum: the first input where it is less than the
 * second, else the second, converted to the output type (as ITK's, the
 * choice is made in the inputs' common type).
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaMinimumFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    return static_cast<TOutput>(first < second ? first : second);
  }
};

/** \class CudaDivideFunctor
 * \brief ITK's Functor::Div: `first / second` in C++'s arithmetic, converted
 * to the output type, where the divisor is not zero as itk::Math::AlmostEquals
 * sees it (an integer equal to 0; a float within 0.1 of float's epsilon of
 * 0, a double within 0.1 of double's); else the largest value of the output
 * type.
 * \ingroup CudaCommon */
template <typename TInput1, typename TInput2 = TInput1, typename TOutput = TInput1>
struct CudaDivideFunctor
{
  __host__ __device__ TOutput
  operator()(TInput1 first, TInput2 second) const
  {
    bool zero = false;
    if constexpr (std::is_same<TInput2, float>::value)
    {
      // itk::Math::FloatAlmostEqual<float>(second, 0): within 0.1 of
      // float's epsilon, as a float (its ULP test adds nothing near 0).
      zero = fabsf(second) <= static_cast<float>(0.1 * 1.1920928955078125e-7);
    }
    else if constexpr (std::is_floating_point<TInput2>::value)
    {
      zero = fabs(static_cast<double>(second)) <= 0.1 * 2.220446049250313080847e-16; // FloatAlmostEqual<double>
    }
    else
    {
      zero = second == TInput2(0);
    }
    if (zero)
    {
      return CudaNumericMaximum<TOutput>();
    }
    return static_cast<TOutput>(first / second);
  }
};

/** \class CudaDivideOrZeroOutFunctor
 * \brief ITK's Functor::DivideOrZeroOut: Constant where the denominator is
 * below Threshold (DivideOrZeroOutImageFilter's parameters), else the
 * quotient of both converted to the output type.
 * \ingroup CudaCommon */
template <typename TNumerator, typename TDenominator = TNumerator, typename TOutput = TNumerator>
struct CudaDivideOrZeroOutFunctor
{
  TDenominator Threshold{};
  TOutput      Constant{};
  __host__ __device__ TOutput
  operator()(TNumerator numerator, TDenominator denominator) const
  {
    if (denominator < Threshold)
    {
      return Constant;
    }
    return static_cast<TOutput>(numerator) / static_cast<TOutput>(denominator);
  }
};

/** The elementary functions of ITK's Sqrt, Exp and Log functors. */
enum class CudaElementaryFunction
{
  Sqrt,
  Exp,
  Log
};

/** \class CudaElementaryFunctor
 * \brief ITK's Functor::Sqrt, Exp and Log: the function of the input
 * converted to double, converted to the output type. The square root is
 * correctly rounded on both sides; exp and log agree with the host's libm
 * to within an ulp of double, which the conversion to a float output
 * almost always hides.
 * \ingroup CudaCommon */
template <CudaElementaryFunction VFunction, typename TInput, typename TOutput = TInput>
struct CudaElementaryFunctor
{
  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    const double value = static_cast<double>(pixel);
    if constexpr (VFunction == CudaElementaryFunction::Sqrt)
    {
      return static_cast<TOutput>(sqrt(value));
    }
    else if constexpr (VFunction == CudaElementaryFunction::Exp)
    {
      return static_cast<TOutput>(exp(value));
    }
    else
    {
      return static_cast<TOutput>(log(value));
    }
  }
};
template <typename TInput, typename TOutput = TInput>
using CudaSqrtFunctor = CudaElementaryFunctor<CudaElementaryFunction::Sqrt, TInput, TOutput>;
template <typename TInput, typename TOutput = TInput>
using CudaExpFunctor = CudaElementaryFunctor<CudaElementaryFunction::Exp, TInput, TOutput>;
template <typename TInput, typename TOutput = TInput>
using CudaLogFunctor = CudaElementaryFunctor<CudaElementaryFunction::Log, TInput, TOutput>;

/** \class CudaBinaryThresholdFunctor
 * \brief ITK's Functor::BinaryThreshold: InsideValue where Lower <= pixel
 * <= Upper, else OutsideValue (BinaryThresholdImageFilter's parameters).
 * \ingroup CudaCommon */
template <typename TInput, typename TOutput>
struct CudaBinaryThresholdFunctor
{
  TInput  Lower{};
  TInput  Upper{};
  TOutput InsideValue{};
  TOutput OutsideValue{};
  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    return Lower <= pixel && pixel <= Upper ? InsideValue : OutsideValue;
  }
};

/** \class CudaThresholdFunctor
 * \brief ThresholdImageFilter's rule: the pixel where Lower <= pixel <=
 * Upper, else OutsideValue.
 * \ingroup CudaCommon */
template <typename TPixel>
struct CudaThresholdFunctor
{
  TPixel Lower{};
  TPixel Upper{};
  TPixel OutsideValue{};
  __host__ __device__ TPixel
  operator()(TPixel pixel) const
  {
    return Lower <= pixel && pixel <= Upper ? pixel : OutsideValue;
  }
};

/** \class CudaCastFunctor
 * \brief CastImageFilter's static_cast of a scalar pixel, as x86-64 (the
 * platform of ITK's wheels) computes it, also where C++ leaves it undefined:
 * a floating-point value converted to an integer of 16 bits or less and to
 * int through a 32-bit int, to a 32-bit unsigned and a 64-bit signed integer
 * through a 64-bit int (values out of that range, and NaN, give its most
 * negative value, as cvttss2si does), where the GPU's own conversion would
 * saturate. (A 64-bit unsigned output from floating point is converted as
 * the GPU does: x86-64 has no one instruction for it.)
 * \ingroup CudaCommon */
template <typename TInput, typename TOutput>
struct CudaCastFunctor
{
  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    if constexpr (std::is_floating_point<TInput>::value && std::is_integral<TOutput>::value &&
                  (sizeof(TOutput) < 4 || (sizeof(TOutput) == 4 && std::is_signed<TOutput>::value)))
    {
      const int32_t truncated = pixel >= TInput(-2147483648.0) && pixel < TInput(2147483648.0)
                                  ? static_cast<int32_t>(pixel)
                                  : INT32_MIN;
      return static_cast<TOutput>(truncated);
    }
    else if constexpr (std::is_floating_point<TInput>::value && std::is_integral<TOutput>::value &&
                       (sizeof(TOutput) == 4 || std::is_signed<TOutput>::value))
    {
      const int64_t truncated = pixel >= TInput(-9223372036854775808.0) && pixel < TInput(9223372036854775808.0)
                                  ? static_cast<int64_t>(pixel)
                                  : INT64_MIN;
      return static_cast<TOutput>(truncated);
    }
    else
    {
      return static_cast<TOutput>(pixel);
    }
  }
};

/** \class CudaShiftScaleFunctor
 * \brief ShiftScaleImageFilter's pixel: (pixel + Shift) * Scale in double
 * (the output's RealType), NonpositiveMin() below the output type's range
 * and max() above it, else converted as CastImageFilter converts
 * (CudaCastFunctor: NaN as x86-64 converts it). On the device, the pixels
 * set to NonpositiveMin() and to max() are counted in *Underflows and
 * *Overflows (device memory of the kernel's device) when those are given;
 * on the host nothing is counted.
 * \ingroup CudaCommon */
template <typename TInput, typename TOutput>
struct CudaShiftScaleFunctor
{
  double               Shift{ 0.0 };
  double               Scale{ 1.0 };
  unsigned long long * Underflows{ nullptr };
  unsigned long long * Overflows{ nullptr };

  __host__ __device__ TOutput
  operator()(TInput pixel) const
  {
    const double value = (static_cast<double>(pixel) + Shift) * Scale;
    if (value < static_cast<double>(CudaNumericNonpositiveMinimum<TOutput>()))
    {
      Count(Underflows);
      return CudaNumericNonpositiveMinimum<TOutput>();
    }
    if (value > static_cast<double>(CudaNumericMaximum<TOutput>()))
    {
      Count(Overflows);
      return CudaNumericMaximum<TOutput>();
    }
    return CudaCastFunctor<double, TOutput>{}(value);
  }

  __host__ __device__ static void
  Count(unsigned long long * counter)
  {
#ifdef __CUDA_ARCH__
    if (counter != nullptr)
    {
      atomicAdd(counter, 1ULL);
    }
#else
    (void)counter;
#endif
  }
};
} // namespace itk

#endif
