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
#include "itkCudaDeviceSplitter.h"
#include "itkCudaResources.h"
#include "itkCudaSplitChoice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>

namespace itk
{
namespace
{
// Pieces start on multiples of this many bytes, so that vectorised kernels
// see the same alignment in every piece as in the whole buffer.
constexpr size_t PieceAlignmentBytes = 256;

size_t
ElementsPerGranule(size_t elementBytes)
{
  return PieceAlignmentBytes / std::gcd(elementBytes, PieceAlignmentBytes);
}

// Elements per granule of every buffer at once: each count above is a power
// of two, so the largest is a multiple of the others.
size_t
ElementsPerGranule(const std::vector<CudaDeviceSplitter::Input> & inputs, size_t outputElementBytes)
{
  size_t granule = ElementsPerGranule(outputElementBytes);
  for (const auto & input : inputs)
  {
    granule = input.Pointer != nullptr ? std::max(granule, ElementsPerGranule(input.ElementBytes)) : granule;
  }
  return granule;
}

// Elements per chunk of a remote piece: whole granules, at least one, of
// at most `chunkBytes` of the widest buffer.
size_t
ElementsPerChunk(size_t chunkBytes, size_t widestBytes, size_t granule)
{
  return std::max(granule, chunkBytes / widestBytes / granule * granule);
}

size_t
RoundUpToPieceAlignment(size_t bytes)
{
  return (bytes + PieceAlignmentBytes - 1) / PieceAlignmentBytes * PieceAlignmentBytes;
}

// Where a remote lane keeps a chunk of each input and of the output: one
// scratch buffer, each part starting on a 256-byte boundary; the output
// shares the part of the first input as wide as it (computed in place).
struct ScratchLayout
{
  std::vector<size_t> InputOffsets; // SIZE_MAX for an input that is no buffer
  size_t              OutputOffset{ 0 };
  size_t              Bytes{ 0 };

  ScratchLayout(const std::vector<CudaDeviceSplitter::Input> & inputs, size_t outputElementBytes, size_t elements)
  {
    bool inPlace = false;
    for (const auto & input : inputs)
    {
      if (input.Pointer == nullptr)
      {
        InputOffsets.push_back(SIZE_MAX);
        continue;
      }
      InputOffsets.push_back(Bytes);
      if (!inPlace && input.ElementBytes == outputElementBytes)
      {
        inPlace = true;
        OutputOffset = Bytes;
      }
      Bytes += RoundUpToPieceAlignment(elements * input.ElementBytes);
    }
    if (!inPlace)
    {
      OutputOffset = Bytes;
      Bytes += RoundUpToPieceAlignment(elements * outputElementBytes);
    }
  }
};

} // namespace

namespace CudaDetail
{
void
CheckSplitChoice(const char *                owner,
                 const std::vector<int> &    devices,
                 const std::vector<double> & weights,
                 bool                        distinct)
{
  std::set<int> seen;
  for (const int device : devices)
  {
    if (device < 0 || (distinct && !seen.insert(device).second))
    {
      itkGenericExceptionMacro(<< owner << ": expected " << (distinct ? "distinct " : "") << "device indices >= 0, got "
                               << (device < 0 ? "the negative index " : "a second ") << device);
    }
  }
  if (weights.empty())
  {
    return;
  }
  if (weights.size() != devices.size())
  {
    itkGenericExceptionMacro(<< owner << ": expected one weight per device (" << devices.size() << "), got "
                             << weights.size());
  }
  double sum = 0.0;
  for (const double weight : weights)
  {
    if (!std::isfinite(weight) || weight < 0.0)
    {
      itkGenericExceptionMacro(<< owner << ": expected finite weights >= 0, got " << weight);
    }
    sum += weight;
  }
  if (sum <= 0.0)
  {
    itkGenericExceptionMacro(<< owner << ": expected at least one weight > 0");
  }
}

std::vector<CudaDeviceSplitter::Piece>
PartitionInGranules(size_t                      count,
                    size_t                      granule,
                    const std::vector<int> &    devices,
                    const std::vector<double> & weights)
{
  if (devices.empty())
  {
    return { CudaDeviceSplitter::Piece{ -1, 0, count } };
  }
  std::vector<double> shares = weights.empty() ? std::vector<double>(devices.size(), 1.0) : weights;
  const double        total = std::accumulate(shares.begin(), shares.end(), 0.0);
  // Boundaries in whole granules: the cumulative share of the granules,
  // rounded; the last boundary is the end, whatever the rounding.
  const size_t                           granules = (count + granule - 1) / granule;
  std::vector<CudaDeviceSplitter::Piece> pieces;
  double                                 cumulative = 0.0;
  size_t                                 begin = 0;
  for (size_t i = 0; i < devices.size(); ++i)
  {
    cumulative += shares[i];
    size_t end = count;
    if (i + 1 < devices.size())
    {
      const auto boundary = static_cast<size_t>(std::llround(cumulative / total * static_cast<double>(granules)));
      end = std::min(count, std::min(boundary, granules) * granule);
    }
    end = std::max(end, begin);
    if (end > begin && shares[i] > 0.0)
    {
      pieces.push_back(CudaDeviceSplitter::Piece{ devices[i], begin, end - begin });
    }
    else if (end > begin)
    {
      end = begin; // a zero weight takes nothing, whatever the rounding gave
    }
    begin = end;
  }
  if (begin < count)
  {
    // Rounding left elements after the last device with a share: give them to it.
    if (pieces.empty())
    {
      itkGenericExceptionMacro("CudaDeviceSplitter: expected at least one weight > 0");
    }
    pieces.back().Count = count - pieces.back().First;
  }
  return pieces;
}

std::vector<int>
AllDevicesHomeFirst(int homeDevice)
{
  int deviceCount = 0;
  CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
  std::vector<int> devices{ homeDevice };
  for (int device = 0; device < deviceCount; ++device)
  {
    if (device != homeDevice)
    {
      devices.push_back(device);
    }
  }
  return devices;
}

void
PrintSplitChoice(std::ostream & os, const std::vector<int> & devices, const std::vector<double> & weights)
{
  os << "devices {";
  for (size_t i = 0; i < devices.size(); ++i)
  {
    os << (i ? ", " : "") << devices[i];
  }
  os << "}, weights {";
  for (size_t i = 0; i < weights.size(); ++i)
  {
    os << (i ? ", " : "") << weights[i];
  }
  os << "}";
}
} // namespace CudaDetail

struct CudaDeviceSplitter::Resources
{
  /** What one remote device keeps between runs. */
  struct Remote
  {
    // The first lanes' streams of the device's pool (made by the pool, never
    // destroyed here).
    cudaStream_t           Streams[NumberOfLanes]{};
    CudaDetail::Event      Done[NumberOfLanes];
    GPUMemPointer::Pointer Scratch[NumberOfLanes];
  };
  std::map<int, Remote>            Remotes;
  std::map<int, CudaDetail::Event> ReadyEvents; // per home device

  void
  WaitForQueuedWork() noexcept
  {
    for (auto & entry : Remotes)
    {
      for (cudaStream_t stream : entry.second.Streams)
      {
        if (stream != nullptr)
        {
          cudaStreamSynchronize(stream);
        }
      }
    }
    cudaGetLastError();
  }

  // Queued work may still use the scratch buffers: the members (each
  // released on its device) go after it.
  ~Resources() { this->WaitForQueuedWork(); }

  /** The home device's event marking the work queued before a run. */
  cudaEvent_t
  GetReadyEvent(int homeDevice)
  {
    CudaDetail::Event & event = ReadyEvents[homeDevice];
    if (!event)
    {
      CUDA_CHECK(CudaDetail::Event::Create(homeDevice, &event));
    }
    return event.Get();
  }

  /** `device`'s streams, events and scratch of at least `scratchBytes` per lane. */
  Remote &
  GetRemote(int device, size_t scratchBytes)
  {
    Remote & remote = Remotes[device];
    if (remote.Streams[0] == nullptr)
    {
      const std::vector<cudaStream_t> pooled = CudaDetail::PooledStreams(device, NumberOfLanes);
      std::copy(pooled.begin(), pooled.end(), remote.Streams);
    }
    for (unsigned int lane = 0; lane < NumberOfLanes; ++lane)
    {
      if (!remote.Done[lane])
      {
        CUDA_CHECK(CudaDetail::Event::Create(device, &remote.Done[lane]));
      }
      if (!remote.Scratch[lane])
      {
        remote.Scratch[lane] = GPUMemPointer::New();
      }
      if (remote.Scratch[lane]->GetBufferSize() < scratchBytes || remote.Scratch[lane]->GetPointer() == nullptr)
      {
        CUDA_CHECK(cudaStreamSynchronize(remote.Streams[lane])); // the old scratch may still be in use
        remote.Scratch[lane]->Allocate(scratchBytes, device);
      }
    }
    return remote;
  }
};

CudaDeviceSplitter::CudaDeviceSplitter()
  : m_Resources(std::make_unique<Resources>())
{}

// The events are destroyed by their owners, on their devices, after the
// queued work (the streams are the device pools'); the scratch buffers are
// freed by their GPUMemPointer.
CudaDeviceSplitter::~CudaDeviceSplitter() = default;

void
CudaDeviceSplitter::WaitForQueuedWork() noexcept
{
  m_Resources->WaitForQueuedWork();
}

void
CudaDeviceSplitter::SetDevices(const std::vector<int> & devices, const std::vector<double> & weights)
{
  CudaDetail::CheckSplitChoice("CudaDeviceSplitter", devices, weights, true);
  m_Devices = devices;
  m_Weights = weights;
  m_AllDevices = false;
}

void
CudaDeviceSplitter::SetAllDevices()
{
  m_Devices.clear();
  m_Weights.clear();
  m_AllDevices = true;
}

void
CudaDeviceSplitter::SetChunkBytes(size_t bytes)
{
  if (bytes == 0)
  {
    itkGenericExceptionMacro("CudaDeviceSplitter: expected a chunk size > 0 bytes");
  }
  this->WaitForQueuedWork(); // scratch of the old size may still be in use
  m_ChunkBytes = bytes;
}

std::vector<CudaDeviceSplitter::Piece>
CudaDeviceSplitter::Partition(size_t                      count,
                              size_t                      elementBytes,
                              const std::vector<int> &    devices,
                              const std::vector<double> & weights)
{
  if (elementBytes == 0)
  {
    itkGenericExceptionMacro("CudaDeviceSplitter: expected an element size > 0 bytes");
  }
  return CudaDetail::PartitionInGranules(count, ElementsPerGranule(elementBytes), devices, weights);
}

unsigned int
CudaDeviceSplitter::QueueRemotePiece(const Piece &                     piece,
                                     const std::vector<Input> &        inputs,
                                     char *                            out,
                                     size_t                            outputElementBytes,
                                     int                               homeDevice,
                                     cudaEvent_t                       ready,
                                     const ElementwiseInputsFunction & function)
{
  const int    device = piece.Device;
  size_t       widest = outputElementBytes;
  for (const auto & input : inputs)
  {
    widest = input.Pointer != nullptr ? std::max(widest, input.ElementBytes) : widest;
  }
  const size_t        chunk = ElementsPerChunk(m_ChunkBytes, widest, ElementsPerGranule(inputs, outputElementBytes));
  const ScratchLayout layout(inputs, outputElementBytes, std::min(chunk, piece.Count));
  // Streams, events and kernels of this piece belong to its device.
  const CudaDeviceGuard onDevice(device);
  CudaEnablePeerAccess(device, homeDevice);
  auto &                    remote = m_Resources->GetRemote(device, layout.Bytes);
  std::vector<const void *> chunkInputs(inputs.size());
  unsigned int              used = 0;
  for (size_t first = 0; first < piece.Count; first += chunk, ++used)
  {
    const unsigned int lane = used % NumberOfLanes;
    cudaStream_t       stream = remote.Streams[lane];
    if (used < NumberOfLanes)
    {
      CUDA_CHECK(cudaStreamWaitEvent(stream, ready, 0)); // after the home stream's earlier work
    }
    const size_t count = std::min(chunk, piece.Count - first);
    const size_t element = piece.First + first;
    auto *       scratch = static_cast<char *>(remote.Scratch[lane]->GetPointer());
    for (size_t k = 0; k < inputs.size(); ++k)
    {
      chunkInputs[k] = nullptr;
      if (inputs[k].Pointer != nullptr)
      {
        chunkInputs[k] = scratch + layout.InputOffsets[k];
        CUDA_CHECK(cudaMemcpyPeerAsync(scratch + layout.InputOffsets[k], device,
                                       static_cast<const char *>(inputs[k].Pointer) + element * inputs[k].ElementBytes,
                                       homeDevice, count * inputs[k].ElementBytes, stream));
      }
    }
    function(chunkInputs.data(), scratch + layout.OutputOffset, count, stream);
    CUDA_CHECK(cudaMemcpyPeerAsync(out + element * outputElementBytes, homeDevice, scratch + layout.OutputOffset,
                                   device, count * outputElementBytes, stream));
  }
  const unsigned int lanes = std::min(used, NumberOfLanes);
  for (unsigned int lane = 0; lane < lanes; ++lane)
  {
    CUDA_CHECK(cudaEventRecord(remote.Done[lane].Get(), remote.Streams[lane]));
  }
  return lanes;
}

void
CudaDeviceSplitter::Run(const void *                in,
                        void *                      out,
                        size_t                      count,
                        size_t                      elementBytes,
                        int                         homeDevice,
                        cudaStream_t                homeStream,
                        const ElementwiseFunction & function)
{
  if (elementBytes == 0)
  {
    itkGenericExceptionMacro("CudaDeviceSplitter: expected an element size > 0 bytes");
  }
  this->Run({ Input{ in, elementBytes } }, out, elementBytes, count, homeDevice, homeStream,
            [&function](const void * const * pieceIn, void * pieceOut, size_t pieceCount, cudaStream_t stream) {
              function(pieceIn[0], pieceOut, pieceCount, stream);
            });
}

void
CudaDeviceSplitter::Run(const std::vector<Input> &        inputs,
                        void *                            out,
                        size_t                            outputElementBytes,
                        size_t                            count,
                        int                               homeDevice,
                        cudaStream_t                      homeStream,
                        const ElementwiseInputsFunction & function)
{
  if (outputElementBytes == 0 ||
      std::any_of(inputs.begin(), inputs.end(), [](const Input & i) { return i.Pointer && i.ElementBytes == 0; }))
  {
    itkGenericExceptionMacro("CudaDeviceSplitter: expected element sizes > 0 bytes");
  }
  if (count == 0)
  {
    m_LastPieces.clear();
    return;
  }
  int deviceCount = 0;
  CUDA_CHECK(cudaGetDeviceCount(&deviceCount));
  const std::vector<int> devices = m_AllDevices ? CudaDetail::AllDevicesHomeFirst(homeDevice) : m_Devices;
  std::vector<Piece>     pieces = CudaDetail::PartitionInGranules(count, ElementsPerGranule(inputs, outputElementBytes), devices, m_Weights);
  for (auto & piece : pieces)
  {
    piece.Device = piece.Device < 0 ? homeDevice : piece.Device;
    if (piece.Device >= deviceCount)
    {
      itkGenericExceptionMacro("CudaDeviceSplitter: invalid CUDA device " << piece.Device
                                                                          << ": expected an index in [0, "
                                                                          << deviceCount << ")");
    }
  }
  const CudaDeviceGuard     onHome(homeDevice);
  auto *                    destination = static_cast<char *>(out);
  std::vector<const void *> pieceInputs(inputs.size());
  try
  {
    cudaEvent_t ready = nullptr;
    if (std::any_of(pieces.begin(), pieces.end(), [=](const Piece & p) { return p.Device != homeDevice; }))
    {
      ready = m_Resources->GetReadyEvent(homeDevice);
      CUDA_CHECK(cudaEventRecord(ready, homeStream));
    }
    // Remote pieces first, so that their copies start while the home device computes.
    std::vector<std::pair<int, unsigned int>> lanesUsed; // device, lanes
    for (const Piece & piece : pieces)
    {
      if (piece.Device != homeDevice)
      {
        lanesUsed.emplace_back(
          piece.Device,
          this->QueueRemotePiece(piece, inputs, destination, outputElementBytes, homeDevice, ready, function));
      }
    }
    for (const Piece & piece : pieces)
    {
      if (piece.Device == homeDevice)
      {
        for (size_t k = 0; k < inputs.size(); ++k)
        {
          pieceInputs[k] = inputs[k].Pointer == nullptr ? nullptr
                                                        : static_cast<const char *>(inputs[k].Pointer) +
                                                            piece.First * inputs[k].ElementBytes;
        }
        function(pieceInputs.data(), destination + piece.First * outputElementBytes, piece.Count, homeStream);
      }
    }
    for (const auto & used : lanesUsed)
    {
      for (unsigned int lane = 0; lane < used.second; ++lane)
      {
        CUDA_CHECK(cudaStreamWaitEvent(homeStream, m_Resources->Remotes.at(used.first).Done[lane].Get(), 0));
      }
    }
  }
  catch (...)
  {
    // Nothing queued may outlive the buffers the caller frees after an error.
    this->WaitForQueuedWork();
    cudaStreamSynchronize(homeStream);
    cudaGetLastError();
    throw;
  }
  m_LastPieces = std::move(pieces);
}

void
CudaDeviceSplitter::Print(std::ostream & os) const
{
  if (m_AllDevices)
  {
    os << "CudaDeviceSplitter: all devices, chunk " << m_ChunkBytes << " bytes";
    return;
  }
  os << "CudaDeviceSplitter: ";
  CudaDetail::PrintSplitChoice(os, m_Devices, m_Weights);
  os << "}, chunk " << m_ChunkBytes << " bytes, " << m_Resources->Remotes.size() << " remote device(s) with scratch";
}
} // namespace itk
