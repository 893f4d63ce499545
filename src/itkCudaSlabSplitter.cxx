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
#include "itkCudaSlabSplitter.h"
#include "itkCudaResources.h"
#include "itkCudaSplitChoice.h"

#include <algorithm>

namespace itk
{
void
CudaSlabSplitter::SetDevices(const std::vector<int> & devices, const std::vector<double> & weights)
{
  CudaDetail::CheckSplitChoice("CudaSlabSplitter", devices, weights, false);
  m_Devices = devices;
  m_Weights = weights;
  m_AllDevices = false;
}

void
CudaSlabSplitter::SetAllDevices()
{
  m_Devices.clear();
  m_Weights.clear();
  m_AllDevices = true;
}

std::vector<CudaSlabSplitter::Slab>
CudaSlabSplitter::Partition(size_t planes, const std::vector<int> & devices, const std::vector<double> & weights)
{
  if (planes == 0)
  {
    return {};
  }
  CudaDetail::CheckSplitChoice("CudaSlabSplitter", devices, weights, false);
  return CudaDetail::PartitionInGranules(planes, 1, devices, weights);
}

void
CudaSlabSplitter::Run(const void *         in,
                      void *               out,
                      const Geometry &     geometry,
                      int                  homeDevice,
                      cudaStream_t         homeStream,
                      const SlabFunction & function)
{
  if (geometry.OutputOffset > geometry.InputPlanes ||
      geometry.OutputPlanes > geometry.InputPlanes - geometry.OutputOffset)
  {
    itkGenericExceptionMacro("CudaSlabSplitter: output planes [" << geometry.OutputOffset << ", "
                                                                 << geometry.OutputOffset + geometry.OutputPlanes
                                                                 << ") outside the input's " << geometry.InputPlanes);
  }
  int deviceCount = 0;
  CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
  std::vector<int> devices;
  if (geometry.MayCut)
  {
    devices = m_AllDevices ? CudaDetail::AllDevicesHomeFirst(homeDevice) : m_Devices;
  }
  std::vector<Slab> slabs = Partition(geometry.OutputPlanes, devices, devices.empty() ? std::vector<double>{} : m_Weights);
  for (Slab & slab : slabs)
  {
    slab.Device = slab.Device < 0 ? homeDevice : slab.Device;
    if (slab.Device >= deviceCount)
    {
      itkGenericExceptionMacro("CudaSlabSplitter: invalid CUDA device " << slab.Device << ": expected an index in [0, "
                                                                        << deviceCount << ")");
    }
  }

  const auto * input = static_cast<const char *>(in);
  auto *       output = static_cast<char *>(out);
  const auto   inputPlanesOf = [&geometry](const Slab & slab, size_t & first) {
    const size_t start = geometry.OutputOffset + slab.First;
    first = start > geometry.Halo ? start - geometry.Halo : 0;
    return std::min(geometry.InputPlanes, start + slab.Count + geometry.Halo) - first;
  };

  // Slabs computed from scratch: their buffers are freed in their stream's
  // order when this vector goes, after everything is queued.
  std::vector<GPUMemPointer::Pointer> scratch;
  std::vector<cudaStream_t>           used;
  std::vector<CudaDetail::Event>      done;
  const CudaDeviceGuard               onHome(homeDevice);
  try
  {
    CudaDetail::Event ready;
    bool              homeSlabSeen = false;
    for (const Slab & slab : slabs)
    {
      if (slab.Device == homeDevice && !homeSlabSeen)
      {
        homeSlabSeen = true;
        continue; // computed in place below, after the others are queued
      }
      size_t       inputFirst = 0;
      const size_t inputCount = inputPlanesOf(slab, inputFirst);
      if (!ready)
      {
        CUDA_CHECK(CudaDetail::Event::Create(homeDevice, &ready));
        CUDA_CHECK(cudaEventRecord(ready.Get(), homeStream));
      }
      const CudaDeviceGuard onDevice(slab.Device);
      CudaEnablePeerAccess(slab.Device, homeDevice);
      // The home device's own slabs past its first take another of its streams.
      const std::vector<cudaStream_t> pool = CudaDetail::PooledStreams(slab.Device, 2);
      cudaStream_t stream = slab.Device == homeDevice && pool[0] == homeStream ? pool[1] : pool[0];
      used.push_back(stream);
      CUDA_CHECK(cudaStreamWaitEvent(stream, ready.Get(), 0));
      auto source = GPUMemPointer::New();
      source->Allocate(inputCount * geometry.InputPlaneBytes, slab.Device, stream);
      auto target = GPUMemPointer::New();
      target->Allocate(slab.Count * geometry.OutputPlaneBytes, slab.Device, stream);
      scratch.push_back(source);
      scratch.push_back(target);
      CUDA_CHECK(cudaMemcpyPeerAsync(source->GetPointer(), slab.Device, input + inputFirst * geometry.InputPlaneBytes,
                                     homeDevice, inputCount * geometry.InputPlaneBytes, stream));
      function(source->GetPointer(), inputFirst, inputCount, target->GetPointer(), slab.First, slab.Count, slab.Device,
               stream);
      CUDA_CHECK(cudaMemcpyPeerAsync(output + slab.First * geometry.OutputPlaneBytes, homeDevice, target->GetPointer(),
                                     slab.Device, slab.Count * geometry.OutputPlaneBytes, stream));
      done.emplace_back();
      CUDA_CHECK(CudaDetail::Event::Create(slab.Device, &done.back()));
      CUDA_CHECK(cudaEventRecord(done.back().Get(), stream));
    }
    // The home device's first slab: in place, on the home stream.
    for (const Slab & slab : slabs)
    {
      if (slab.Device == homeDevice)
      {
        size_t       inputFirst = 0;
        const size_t inputCount = inputPlanesOf(slab, inputFirst);
        function(input + inputFirst * geometry.InputPlaneBytes, inputFirst, inputCount,
                 output + slab.First * geometry.OutputPlaneBytes, slab.First, slab.Count, homeDevice, homeStream);
        break;
      }
    }
    for (const CudaDetail::Event & event : done)
    {
      CUDA_CHECK(cudaStreamWaitEvent(homeStream, event.Get(), 0));
    }
  }
  catch (...)
  {
    // Nothing queued may outlive the buffers the caller frees after an error.
    for (cudaStream_t stream : used)
    {
      cudaStreamSynchronize(stream);
    }
    cudaStreamSynchronize(homeStream);
    cudaGetLastError();
    throw;
  }
  m_LastSlabs = std::move(slabs);
}

void
CudaSlabSplitter::Print(std::ostream & os) const
{
  if (m_AllDevices)
  {
    os << "CudaSlabSplitter: all devices";
    return;
  }
  os << "CudaSlabSplitter: ";
  CudaDetail::PrintSplitChoice(os, m_Devices, m_Weights);
}

namespace CudaDetail
{
void
SetSlabDevices(CudaSlabSplitter &          splitter,
               const std::vector<int> &    devices,
               const std::vector<double> & weights,
               Object *                    filter)
{
  if (splitter.GetAllDevices() || devices != splitter.GetDevices() || weights != splitter.GetWeights())
  {
    splitter.SetDevices(devices, weights);
    filter->Modified();
  }
}

void
SetSlabAllDevices(CudaSlabSplitter & splitter, bool all, Object * filter)
{
  if (all != splitter.GetAllDevices())
  {
    if (all)
    {
      splitter.SetAllDevices();
    }
    else
    {
      splitter.SetDevices({});
    }
    filter->Modified();
  }
}
} // namespace CudaDetail
} // namespace itk
