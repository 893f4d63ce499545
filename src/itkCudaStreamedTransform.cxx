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
#include "itkCudaStreamedTransform.h"
#include "itkCudaDataManager.h"
#include "itkCudaError.h"
#include "itkCudaResources.h"
#include "itkMacro.h"

#include <algorithm>
#include <vector>

namespace itk
{
namespace
{
constexpr unsigned int MaximumStreams = 8;
} // namespace

bool
CudaStreamedTransform(const std::vector<CudaStreamedInput> & inputs,
                      void *                                 hostOut,
                      void *                                 deviceOut,
                      size_t                                 outputPixelBytes,
                      size_t                                 pixels,
                      cudaStream_t                           stream,
                      const CudaStreamedCompute &            compute,
                      const std::function<bool(double)> &    progress,
                      const CudaStreamedTransformSettings &  settings)
{
  size_t widest = outputPixelBytes;
  bool   complete = outputPixelBytes > 0 && hostOut != nullptr && deviceOut != nullptr && !inputs.empty();
  for (const auto & input : inputs)
  {
    widest = std::max(widest, input.PixelBytes);
    complete = complete && input.PixelBytes > 0 && input.Host != nullptr;
  }
  if (!complete)
  {
    itkGenericExceptionMacro("CudaStreamedTransform: expected one or more inputs and an output, each with a host "
                             "buffer and a pixel size, got "
                             << inputs.size() << " inputs and an output of " << outputPixelBytes << "-byte pixels");
  }
  if (pixels == 0)
  {
    return true;
  }
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  const unsigned int count = std::max(1u, std::min(settings.Streams, MaximumStreams));
  // Whole multiples of 4096 pixels: whole pages of every buffer, and packs
  // of the kernels aligned at each chunk's start.
  constexpr size_t unit = 4096;
  const size_t     chunk = std::max(unit, settings.ChunkBytes / widest / unit * unit);
  const size_t     chunks = (pixels + chunk - 1) / chunk;
  const unsigned int used = static_cast<unsigned int>(std::min<size_t>(count, chunks));
  const std::vector<cudaStream_t> streams = CudaDetail::PooledStreams(current, used);

  // Where each input's chunks land: the first as wide as the output in the
  // output's buffer, the others in a scratch buffer per stream.
  const size_t                        landing = static_cast<size_t>(
    std::find_if(inputs.begin(), inputs.end(), [&](const CudaStreamedInput & in) { return in.PixelBytes == outputPixelBytes; }) -
    inputs.begin());
  std::vector<GPUMemPointer::Pointer> scratch; // [stream * inputs + input]; freed in `stream`'s order
  for (unsigned int s = 0; s < used; ++s)
  {
    for (size_t i = 0; i < inputs.size(); ++i)
    {
      scratch.push_back(nullptr);
      if (i != landing)
      {
        scratch.back() = GPUMemPointer::New();
        scratch.back()->Allocate(chunk * inputs[i].PixelBytes, current, stream);
      }
    }
  }

  std::vector<CudaDetail::Event> landed(used);
  for (auto & event : landed)
  {
    CUDA_CHECK(CudaDetail::Event::Create(current, &event));
  }
  CudaDetail::Event start;
  CUDA_CHECK(CudaDetail::Event::Create(current, &start));
  CUDA_CHECK(cudaEventRecord(start.Get(), stream));

  // Whatever happens, `stream` comes after every queued chunk when this
  // returns, and on an error or exception the chunks have finished.
  std::vector<bool> started(used, false);
  const auto        joinStreams = [&]() noexcept {
    for (unsigned int s = 0; s < used; ++s)
    {
      if (started[s] && cudaEventRecord(landed[s].Get(), streams[s]) == cudaSuccess)
      {
        cudaStreamWaitEvent(stream, landed[s].Get(), 0);
      }
    }
  };
  char *                    deviceOutput = static_cast<char *>(deviceOut);
  char *                    hostOutput = static_cast<char *>(hostOut);
  std::vector<const void *> deviceInputs(inputs.size());
  bool                      completed = true;
  try
  {
    for (size_t k = 0; k < chunks; ++k)
    {
      const unsigned int s = static_cast<unsigned int>(k % used);
      if (k >= used)
      {
        // The chunk k - used took this stream: once it has landed, report.
        CUDA_CHECK(cudaEventSynchronize(landed[s].Get()));
        if (!progress(static_cast<double>(k - used + 1) / static_cast<double>(chunks)))
        {
          completed = false;
          break;
        }
      }
      if (!started[s])
      {
        CUDA_CHECK(cudaStreamWaitEvent(streams[s], start.Get(), 0));
        started[s] = true;
      }
      const size_t first = k * chunk;
      const size_t length = std::min(chunk, pixels - first);
      for (size_t i = 0; i < inputs.size(); ++i)
      {
        const size_t pixelBytes = inputs[i].PixelBytes;
        void *       target = i == landing ? deviceOutput + first * outputPixelBytes
                                           : scratch[s * inputs.size() + i]->GetPointer();
        CUDA_CHECK(cudaMemcpyAsync(target,
                                   static_cast<const char *>(inputs[i].Host) + first * pixelBytes,
                                   length * pixelBytes,
                                   cudaMemcpyHostToDevice,
                                   streams[s]));
        deviceInputs[i] = target;
      }
      compute(deviceInputs.data(), deviceOutput + first * outputPixelBytes, length, streams[s]);
      CUDA_CHECK(cudaMemcpyAsync(hostOutput + first * outputPixelBytes,
                                 deviceOutput + first * outputPixelBytes,
                                 length * outputPixelBytes,
                                 cudaMemcpyDeviceToHost,
                                 streams[s]));
      CUDA_CHECK(cudaEventRecord(landed[s].Get(), streams[s]));
    }
    joinStreams();
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  catch (...)
  {
    joinStreams();
    cudaStreamSynchronize(stream); // no copy touches the buffers after this
    cudaGetLastError();
    throw;
  }
  return completed;
}

bool
CudaStreamedTransform(const void *                                             hostIn,
                      void *                                                   hostOut,
                      void *                                                   device,
                      size_t                                                   bytes,
                      size_t                                                   pixelBytes,
                      cudaStream_t                                             stream,
                      const std::function<void(void *, size_t, cudaStream_t)> & compute,
                      const std::function<bool(double)> &                      progress,
                      const CudaStreamedTransformSettings &                    settings)
{
  if (bytes == 0)
  {
    return true;
  }
  if (pixelBytes == 0 || bytes % pixelBytes != 0 || hostIn == nullptr || hostOut == nullptr || device == nullptr)
  {
    itkGenericExceptionMacro("CudaStreamedTransform: expected buffers of whole pixels, got "
                             << bytes << " bytes of " << pixelBytes << "-byte pixels");
  }
  return CudaStreamedTransform(
    { CudaStreamedInput{ hostIn, pixelBytes } },
    hostOut,
    device,
    pixelBytes,
    bytes / pixelBytes,
    stream,
    [&compute](const void * const *, void * out, size_t count, cudaStream_t chunkStream) {
      compute(out, count, chunkStream); // the input's chunk landed there
    },
    progress,
    settings);
}

CudaStreamedOutcome
CudaStreamImagesFromHost(const std::vector<CudaStreamedImage> & inputs,
                         CudaDataManager &                      output,
                         size_t                                 outputPixelBytes,
                         size_t                                 pixels,
                         cudaStream_t                           stream,
                         const CudaStreamedCompute &            compute,
                         const std::function<bool(double)> &    progress,
                         const CudaStreamedTransformSettings &  settings)
{
  size_t widest = outputPixelBytes;
  for (const auto & input : inputs)
  {
    widest = std::max(widest, input.PixelBytes);
    if (input.Manager == nullptr || input.Manager->IsCPUBufferDirty())
    {
      return CudaStreamedOutcome::NotApplicable;
    }
  }
  if (inputs.empty() || settings.ChunkBytes == 0 || pixels * widest < 2 * settings.ChunkBytes)
  {
    return CudaStreamedOutcome::NotApplicable;
  }
  std::vector<CudaStreamedInput> hosts;
  CudaTransferStatistics         copies;
  for (const auto & input : inputs)
  {
    // The CPU copy is current: taking its pointer downloads nothing, and
    // sees a CPU write announced by Modified() alone (the GPU copy is then
    // stale).
    const void * host = input.Manager->GetConstCPUBufferPointer();
    if (!input.Manager->IsGPUBufferDirty() || !CudaIsPinnedHostMemory(host))
    {
      return CudaStreamedOutcome::NotApplicable;
    }
    hosts.push_back({ host, input.PixelBytes });
    ++copies.HostToDeviceCount;
    copies.HostToDeviceBytes += pixels * input.PixelBytes;
  }
  copies.DeviceToHostCount = 1;
  copies.DeviceToHostBytes = pixels * outputPixelBytes;
  // In place the output's host buffer is the first input's; otherwise its
  // own, if it has one already and pinned: none is made (a GPU-only output
  // keeps costing no host memory), nothing is downloaded into it. Until the
  // production commits, an error or an abort leaves the output's host copy
  // current with what landed, its device copy stale.
  CudaHostStreamedProduction production = output.BeginHostStreamedProduction();
  if (!production)
  {
    return CudaStreamedOutcome::NotApplicable;
  }
  if (!CudaStreamedTransform(hosts,
                             production.GetHostBuffer(),
                             production.GetDeviceBuffer(),
                             outputPixelBytes,
                             pixels,
                             stream,
                             compute,
                             progress,
                             settings))
  {
    return CudaStreamedOutcome::Aborted;
  }
  production.Commit(copies);
  return CudaStreamedOutcome::Completed;
}
} // namespace itk
