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
#ifndef itkCudaMemoryProbe_h
#define itkCudaMemoryProbe_h

#include "CudaCommonExport.h"
#include "itkIntTypes.h"
#include "itkResourceProbe.h"

namespace itk
{
/** \class CudaMemoryProbe
 * \brief A ResourceProbe of the memory in use on the current CUDA device.
 *
 * Each Start()/Stop() samples total - free device memory, in kB, so the
 * statistics (GetMean(), GetTotal(), ...) report how much device memory was
 * allocated between them. Without a device every sample is 0.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaMemoryProbe : public ResourceProbe<OffsetValueType, double>
{
public:
  using CudaMemoryLoadType = OffsetValueType;
  using MeanCudaMemoryLoadType = double;

  CudaMemoryProbe();
  ~CudaMemoryProbe() override;

protected:
  CudaMemoryLoadType
  GetInstantValue() const override;
};
} // namespace itk

#endif
