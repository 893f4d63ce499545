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
#ifndef itkCudaProcessGlobal_h
#define itkCudaProcessGlobal_h

/** \file itkCudaProcessGlobal.h
 * \brief CudaCommon's process-wide state, one per process (internal, not
 * installed).
 *
 * A process can hold several copies of CudaCommon's library: every ITK
 * Python module that links it statically has its own (CudaCommon's module
 * and RTK's, in the wheels), and an image made by one copy's code is used by
 * another's. State whose identity matters (the allocation registry that
 * recognises a pointer into an owned allocation, the pools, the streams, the
 * memory backend) must then be one per process, not one per copy. ITK has the
 * mechanism: its SingletonIndex, which ITK's Python modules share (each
 * module adopts ITKCommon's at import). ProcessGlobal() finds the object
 * there under its name, or makes it and puts it there.
 *
 * The name carries CudaCommon's version and the object's size, so that two
 * copies of different versions keep apart rather than share a layout they
 * disagree on. The objects are never destroyed: images released during
 * static destruction may still use them. Like ITK's own globals, the first
 * use is not synchronised across copies (within one copy it is): copies
 * meet at import time, one module at a time.
 */

#include "itkObjectFactoryBase.h"

#include <cstddef>

namespace itk
{
namespace CudaDetail
{
/** The process's object named `name` (with `bytes`, its size), made by
 * `make` on first use in the process. */
void *
ProcessGlobal(const char * name, size_t bytes, void * (*make)());

/** ProcessGlobal() of a T made with `new T`. It looks the name up on every
 * call: a caller keeps the reference, once per copy, in a static of its own
 * (`static T & state = ProcessGlobalOf<T>("Name");`). */
template <typename T>
T &
ProcessGlobalOf(const char * name)
{
  return *static_cast<T *>(ProcessGlobal(name, sizeof(T), []() -> void * { return new T; }));
}

/** Register the factory `make()` returns (none for nullptr) unless ITK's
 * list, the process's, holds one of class `className` already; under a
 * process-wide lock, so that two registrations never both find none.
 * Returns whether one is registered now. Defined in itkCudaImageFactory.cxx. */
bool
RegisterFactoryOnce(const char * className, ObjectFactoryBase::Pointer (*make)());
} // namespace CudaDetail
} // namespace itk

#endif
