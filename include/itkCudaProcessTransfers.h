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
#ifndef itkCudaProcessTransfers_h
#define itkCudaProcessTransfers_h

#include "itkCudaDataManager.h" // CudaTransferStatistics

namespace itk
{
/** \file itkCudaProcessTransfers.h
 * \brief The copies of every data manager of the process, summed.
 * \ingroup CudaCommon
 */

/** The copies between host and device, and between devices, that every
 * CudaDataManager of this process has made since the process started (each
 * manager's GetTransferStatistics(), summed, including those of managers
 * gone since; ResetTransferStatistics() of a manager does not change it).
 * What a pipeline moves, filters inside it included, is the difference of
 * two calls around its Update(): zero host-device bytes when its images
 * stay on the GPU. Thread-safe. */
CudaCommon_EXPORT CudaTransferStatistics
CudaGetProcessTransferStatistics();

/** `after` minus `before`, field by field. */
inline CudaTransferStatistics
operator-(const CudaTransferStatistics & after, const CudaTransferStatistics & before)
{
  return { after.HostToDeviceCount - before.HostToDeviceCount, after.HostToDeviceBytes - before.HostToDeviceBytes,
           after.DeviceToHostCount - before.DeviceToHostCount, after.DeviceToHostBytes - before.DeviceToHostBytes,
           after.PeerCount - before.PeerCount,                 after.PeerBytes - before.PeerBytes };
}
} // namespace itk

#endif
