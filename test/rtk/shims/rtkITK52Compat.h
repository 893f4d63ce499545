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
#ifndef rtkITK52Compat_h
#define rtkITK52Compat_h

// Force-included into every C++ file of the RTK compatibility build: the ITK
// 5.3/5.4 API that RTK 2.7.0 uses and ITK 5.2 lacks. Not CudaCommon's API.

#include "itkConfigure.h"
#include "itkMacro.h"

// ITK 5.4's names for what ITK 5.2 spells itkTypeMacro(thisClass, superclass).
#ifndef itkOverrideGetNameOfClassMacro
#  define itkOverrideGetNameOfClassMacro(thisClass)                                                                    \
    const char * GetNameOfClass() const override { return #thisClass; }                                               \
    ITK_MACROEND_NOOP_STATEMENT
#endif
#ifndef itkVirtualGetNameOfClassMacro
#  define itkVirtualGetNameOfClassMacro(thisClass)                                                                     \
    virtual const char * GetNameOfClass() const { return #thisClass; }                                                \
    ITK_MACROEND_NOOP_STATEMENT
#endif

#if ITK_VERSION_MAJOR == 5 && ITK_VERSION_MINOR < 3
#  include "itkPoint.h"
#  include "itkSize.h"
#  include "itkVector.h"

#  include <type_traits>

namespace itk
{
// ITK 5.3's MakeVector / MakePoint / MakeSize: a fixed-size object from its
// components, all of one type (the dimension is their number).
template <typename TValue, typename... TMore>
Vector<TValue, 1 + sizeof...(TMore)>
MakeVector(TValue first, TMore... more)
{
  static_assert((std::is_same<TValue, TMore>::value && ...), "MakeVector: components of one type");
  Vector<TValue, 1 + sizeof...(TMore)> result;
  unsigned int                         i = 0;
  for (const TValue value : { first, more... })
  {
    result[i++] = value;
  }
  return result;
}

template <typename TValue, typename... TMore>
Point<TValue, 1 + sizeof...(TMore)>
MakePoint(TValue first, TMore... more)
{
  static_assert((std::is_same<TValue, TMore>::value && ...), "MakePoint: coordinates of one type");
  Point<TValue, 1 + sizeof...(TMore)> result;
  unsigned int                        i = 0;
  for (const TValue value : { first, more... })
  {
    result[i++] = value;
  }
  return result;
}

template <typename... TValues>
Size<sizeof...(TValues)>
MakeSize(TValues... values)
{
  static_assert((std::is_integral<TValues>::value && ...), "MakeSize: integral sizes");
  Size<sizeof...(TValues)> result;
  unsigned int             i = 0;
  for (const SizeValueType value : { static_cast<SizeValueType>(values)... })
  {
    result[i++] = value;
  }
  return result;
}
} // namespace itk
#endif

#endif
