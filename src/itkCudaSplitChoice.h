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
#ifndef itkCudaSplitChoice_h
#define itkCudaSplitChoice_h

#include "itkCudaDeviceSplitter.h"

#include <ostream>
#include <vector>

// What the two ways of sharing work between devices (CudaDeviceSplitter's
// pieces of elements, CudaSlabSplitter's slabs of planes) have in common:
// the checked choice of devices and weights, and the cut in proportion to
// the weights. Internal to the library.
namespace itk
{
namespace CudaDetail
{
/** \throws itk::ExceptionObject, its message starting with `owner`, for a
 * negative device (or, when `distinct`, one named twice), weights not
 * matching the devices, a negative or non-finite weight, or weights that are
 * all zero (empty weights: equal shares). */
void
CheckSplitChoice(const char *                owner,
                 const std::vector<int> &    devices,
                 const std::vector<double> & weights,
                 bool                        distinct);

/** `count` items cut into one piece per device with a nonzero share, in the
 * devices' order, boundaries at the rounded cumulative shares in whole
 * granules of `granule` items (the last piece with a share ends at `count`);
 * empty `devices`: one piece for device -1. */
std::vector<CudaDeviceSplitter::Piece>
PartitionInGranules(size_t                      count,
                    size_t                      granule,
                    const std::vector<int> &    devices,
                    const std::vector<double> & weights);

/** Every visible device, `homeDevice` first. \throws itk::ExceptionObject. */
std::vector<int>
AllDevicesHomeFirst(int homeDevice);

/** "devices {0, 1}, weights {3, 1}". */
void
PrintSplitChoice(std::ostream & os, const std::vector<int> & devices, const std::vector<double> & weights);
} // namespace CudaDetail
} // namespace itk

#endif
