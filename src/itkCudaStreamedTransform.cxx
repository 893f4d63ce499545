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
#include "itkCudaError.h"
#include "itkCudaResources.h"
#include "itkMacro.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace itk
{
namespace
{
constexpr unsigned int MaximumStreams = 8;

/** The streams of streamed transforms, per device, made at first use and
 * kept (non-blocking: ordered with other streams by events alone). */
class TransformStreams
{
public:
  /** The first `count` streams of `device`. */
  std::vector<cudaStream_t>
  Get(int device, unsigned int count)
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    if (device >= static_cast<int>(m_Streams.size()))
    {
      m_Streams.resize(device + 1);
    }
    auto & streams = m_Streams[device];
    while (streams.size() < count)
    {
      CudaDetail::Stream created;
      CUDA_CHECK(CudaDetail::Stream::Create(device, cudaStreamNonBlocking, &created));
      streams.push_back(std::move(created));
    }
    std::vector<cudaStream_t> handles;
    for (unsigned int i = 0; i < count; ++i)
    {
      handles.push_back(streams[i].Get());
    }
    return handles;
  }

private:
  std::mutex                                   m_Mutex;
  std::vector<std::vector<CudaDetail::Stream>> m_Streams;
};

TransformStreams &
Streams()
{
  static auto * streams = new TransformStreams; // used until the process ends
  return *streams;
}
} // namespace

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
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  const unsigned int count = std::max(1u, std::min(settings.Streams, MaximumStreams));
  // Whole pixels and whole pages; packs of the kernels stay aligned too.
  const size_t unit = 4096 * pixelBytes;
  const size_t chunk = std::max(unit, settings.ChunkBytes / unit * unit);
  const size_t chunks = (bytes + chunk - 1) / chunk;
  const std::vector<cudaStream_t> streams = Streams().Get(current, count);

  std::vector<CudaDetail::Event> landed(count);
  for (auto & event : landed)
  {
    CUDA_CHECK(CudaDetail::Event::Create(current, &event));
  }
  CudaDetail::Event start;
  CUDA_CHECK(CudaDetail::Event::Create(current, &start));
  CUDA_CHECK(cudaEventRecord(start.Get(), stream));

  // Whatever happens, `stream` comes after every queued chunk when this
  // returns, and on an error or exception the chunks have finished.
  std::vector<bool> used(count, false);
  const auto        joinStreams = [&]() noexcept {
    for (unsigned int s = 0; s < count; ++s)
    {
      if (used[s] && cudaEventRecord(landed[s].Get(), streams[s]) == cudaSuccess)
      {
        cudaStreamWaitEvent(stream, landed[s].Get(), 0);
      }
    }
  };
  const char * hostSource = static_cast<const char *>(hostIn);
  char *       hostDestination = static_cast<char *>(hostOut);
  char *       deviceBuffer = static_cast<char *>(device);
  bool         completed = true;
  try
  {
    for (size_t k = 0; k < chunks; ++k)
    {
      const unsigned int s = static_cast<unsigned int>(k % count);
      if (k >= count)
      {
        // The chunk k - count used this stream: once it has landed, report.
        CUDA_CHECK(cudaEventSynchronize(landed[s].Get()));
        if (!progress(static_cast<double>(k - count + 1) / static_cast<double>(chunks)))
        {
          completed = false;
          break;
        }
      }
      if (!used[s])
      {
        CUDA_CHECK(cudaStreamWaitEvent(streams[s], start.Get(), 0));
        used[s] = true;
      }
      const size_t offset = k * chunk;
      const size_t length = std::min(chunk, bytes - offset);
      CUDA_CHECK(
        cudaMemcpyAsync(deviceBuffer + offset, hostSource + offset, length, cudaMemcpyHostToDevice, streams[s]));
      compute(deviceBuffer + offset, length / pixelBytes, streams[s]);
      CUDA_CHECK(
        cudaMemcpyAsync(hostDestination + offset, deviceBuffer + offset, length, cudaMemcpyDeviceToHost, streams[s]));
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
} // namespace itk
