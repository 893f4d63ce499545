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

// CudaCommonBenchmark: the per-image cost, allocate-again and transfer rows.

#include "CudaBenchmarkSupport.h"

#include "itkCudaImageFromImageFilter.h"

namespace CudaBenchmark
{
namespace
{
/** New() + SetRegions() + Allocate() of a 16x16 image, in microseconds. Host
 * work of about a microsecond: no device synchronisation inside the clock. */
template <typename TImage>
Samples
TimeSmallImageCreation()
{
  typename TImage::Pointer  image;
  typename TImage::SizeType size;
  size.Fill(PerImageEdge);
  const Samples milliseconds = TimeOnHost(
    PerImageWarmUpRuns,
    PerImageRuns,
    false,
    [] {},
    [&] {
      image = TImage::New();
      image->SetRegions(size);
      image->Allocate();
    },
    [&] { image = nullptr; });
  return Scaled(milliseconds, 1000.0);
}
} // namespace

void
MeasurePerImageCost(Results & results)
{
  using PlainImage = itk::Image<float, 2>;
  using CudaImage = itk::CudaImage<float, 2>;
  // A registered CudaImageFactory would make the reference a CudaImage too.
  if (dynamic_cast<CudaImage *>(PlainImage::New().GetPointer()) != nullptr)
  {
    itkGenericExceptionMacro("itk::Image<float, 2>::New() returned a CudaImage (CudaImageFactory registered?): "
                             "the per-image reference must be a plain itk::Image");
  }
  std::cout << "Per-image cost of New()+SetRegions()+Allocate() (" << PerImageEdge << "x" << PerImageEdge << ")\n";
  const Samples     plain = TimeSmallImageCreation<PlainImage>();
  const Samples     cuda = TimeSmallImageCreation<CudaImage>();
  const std::string shape = PlaneShape(PerImageEdge, PerImageEdge);
  results.Add(
    { "CudaImage New+SetRegions+Allocate", PerImageEdge, shape, cuda, "us", "itk::Image, same calls", plain.median });
  results.Add({ "itk::Image New+SetRegions+Allocate", PerImageEdge, shape, plain, "us", "", NotANumber });
}

namespace
{
/** The CUDA calls a 16x16 round trip cannot do without, made directly: a
 * stream-ordered allocation from a pool that keeps its memory, the upload
 * of the pixels from pageable memory and the free, all on the legacy
 * default stream (no stream of an image's own, no event), and the upload
 * alone. What the round trip above costs beyond these is the library's. */
void
MeasureRoundTripFloor(Results & results)
{
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  struct Pool
  {
    cudaMemPool_t Handle{ nullptr };
    ~Pool()
    {
      const cudaError_t error = Handle != nullptr ? cudaMemPoolDestroy(Handle) : cudaSuccess;
      if (error != cudaSuccess)
      {
        std::cerr << "cudaMemPoolDestroy: " << cudaGetErrorName(error) << "\n";
      }
    }
  } owned;
  CUDA_CHECK(cudaMemPoolCreate(&owned.Handle, &properties));
  const cudaMemPool_t pool = owned.Handle;
  uint64_t keepAll = UINT64_MAX;
  CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
  const std::vector<float> pixels(PerImageEdge * PerImageEdge, 2.0f);
  const size_t             bytes = pixels.size() * sizeof(float);
  const auto               idle = [] { CUDA_CHECK(cudaDeviceSynchronize()); };
  const auto               nothing = [] {};
  const Samples            calls = TimeOnHost(PerImageWarmUpRuns / 10, PerImageRuns / 10, false, idle, [&] {
    void * buffer = nullptr;
    CUDA_CHECK(cudaMallocFromPoolAsync(&buffer, bytes, pool, nullptr));
    CUDA_CHECK(cudaMemcpyAsync(buffer, pixels.data(), bytes, cudaMemcpyHostToDevice, nullptr));
    CUDA_CHECK(cudaFreeAsync(buffer, nullptr));
  }, nothing);
  void * buffer = nullptr;
  CUDA_CHECK(cudaMallocFromPoolAsync(&buffer, bytes, pool, nullptr));
  const Samples upload = TimeOnHost(PerImageWarmUpRuns / 10, PerImageRuns / 10, false, idle, [&] {
    CUDA_CHECK(cudaMemcpyAsync(buffer, pixels.data(), bytes, cudaMemcpyHostToDevice, nullptr));
  }, nothing);
  CUDA_CHECK(cudaFreeAsync(buffer, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string shape = PlaneShape(PerImageEdge, PerImageEdge);
  results.Add({ "raw CUDA: cudaMallocFromPoolAsync+cudaMemcpyAsync (pageable)+cudaFreeAsync, legacy stream",
                PerImageEdge,
                shape,
                Scaled(calls, 1000.0),
                "us",
                "",
                NotANumber });
  results.Add({ "raw CUDA: cudaMemcpyAsync of the pixels (pageable), legacy stream",
                PerImageEdge,
                shape,
                Scaled(upload, 1000.0),
                "us",
                "",
                NotANumber });
}
} // namespace

void
MeasureSmallImageRoundTrip(Results & results)
{
  using CudaImage = itk::CudaImage<float, 2>;
  std::cout << "Per-image GPU round trip (" << PerImageEdge << "x" << PerImageEdge << ")\n";
  CudaImage::SizeType size;
  size.Fill(PerImageEdge);
  CudaImage::Pointer image;
  const void *       device = nullptr;
  // New, SetRegions, Allocate, FillBuffer, GetGPUBufferPointer (device
  // allocation and upload) and the image's destruction, all timed: the host
  // time a pipeline of many small images pays per image. The upload and the
  // free are queued on the image's stream and finish after the clock stops;
  // the device is idle before each run (untimed synchronisation).
  const Samples milliseconds = TimeOnHost(
    PerImageWarmUpRuns / 10,
    PerImageRuns / 10,
    false,
    [] { CUDA_CHECK(cudaDeviceSynchronize()); },
    [&] {
      image = CudaImage::New();
      image->SetRegions(size);
      image->Allocate();
      image->FillBuffer(2.0f);
      device = image->GetCudaDataManager()->GetGPUBufferPointer();
      image = nullptr;
    },
    [&] {
      if (device == nullptr)
      {
        itkGenericExceptionMacro("the round trip's image had no device buffer");
      }
    });
  // One more, checked: the device copy holds the filled pixels.
  image = CudaImage::New();
  image->SetRegions(size);
  image->Allocate();
  image->FillBuffer(2.0f);
  const std::vector<float> expected(PerImageEdge * PerImageEdge, 2.0f);
  CheckDeviceBuffer(image->GetCudaDataManager()->GetConstGPUBufferPointer(), expected.data(), expected.size(),
                    "16x16 GPU round trip");
  results.Add({ "CudaImage New+SetRegions+Allocate+FillBuffer+GetGPUBufferPointer+destroy",
                PerImageEdge,
                PlaneShape(PerImageEdge, PerImageEdge),
                Scaled(milliseconds, 1000.0),
                "us",
                "target (issue 13)",
                5.0 });
  MeasureRoundTripFloor(results);
}

namespace
{
/** New() + SetRegions() + Allocate() of an N^3 image, in milliseconds. The
 * first warm-up run is the first allocation of that size; every later run
 * allocates it again after the previous image was destroyed. */
template <typename TImage>
Samples
TimeVolumeAllocation(unsigned long n, unsigned int repeats, bool gpu)
{
  typename TImage::Pointer image;
  return TimeOnHost(
    WarmUpRuns,
    repeats,
    gpu,
    [] {},
    [&] {
      image = TImage::New();
      image->SetRegions(CubeSize<TImage>(n));
      image->Allocate();
    },
    [&] { image = nullptr; });
}
} // namespace

void
MeasureAllocateAgain(Results & results, unsigned long n, const Options & options, bool gpu)
{
  std::cout << "[" << CubeShape(n) << "] allocating a float volume of the same size again\n";
  const Samples plain = TimeVolumeAllocation<itk::Image<float, 3>>(n, options.repeats, gpu);
  const Samples cuda = TimeVolumeAllocation<itk::CudaImage<float, 3>>(n, options.repeats, gpu);
  results.Add({ "CudaImage allocate again (New+SetRegions+Allocate)",
                n,
                CubeShape(n),
                cuda,
                "ms",
                "itk::Image, same calls",
                plain.median });
}

namespace
{
/** Upload and download of `image` through its data manager; `host` is its
 * CPU buffer and `expected` the pixels it holds. Returns {upload, download}
 * in GB/s. */
std::pair<Samples, Samples>
TimeImageTransfers(itk::CudaImage<float, 3> * image,
                   float *                    host,
                   const std::vector<float> & expected,
                   unsigned int               repeats,
                   const std::string &        what)
{
  const size_t                  count = expected.size();
  const size_t                  bytes = count * sizeof(float);
  itk::CudaDataManager::Pointer manager = image->GetCudaDataManager();

  // Checked once before timing: the upload delivers the pixels, and the
  // download restores a poisoned (stale) CPU copy.
  manager->SetGPUDirtyFlag(true);
  CheckDeviceBuffer(manager->GetConstGPUBufferPointer(), expected.data(), count, what + " upload");
  manager->GetGPUBufferPointer();
  std::fill(host, host + count, std::numeric_limits<float>::quiet_NaN());
  manager->UpdateCPUBuffer();
  CheckPixels(host, expected.data(), count, what + " download");

  itk::CudaTransferStatistics before;
  const Samples               upload = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    [&] {
      before = manager->GetTransferStatistics();
      // The CPU copy stays current: only the flag says the GPU copy is stale.
      manager->SetGPUDirtyFlag(true);
    },
    [&] { manager->GetConstGPUBufferPointer(); },
    [&] { ExpectTransfers(before, manager->GetTransferStatistics(), 1, 0, bytes, what + " upload"); });
  const Samples download = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    [&] {
      before = manager->GetTransferStatistics();
      // GPU copy current (no copy needed), CPU copy marked stale.
      manager->GetGPUBufferPointer();
    },
    [&] { manager->UpdateCPUBuffer(); },
    [&] { ExpectTransfers(before, manager->GetTransferStatistics(), 0, 1, bytes, what + " download"); });
  return { ToBandwidth(upload, static_cast<double>(bytes)), ToBandwidth(download, static_cast<double>(bytes)) };
}

/** Raw cudaMemcpy between `host` and a device buffer: {host->device, device->host} in GB/s. */
std::pair<Samples, Samples>
TimeRawTransfers(float * host, size_t count, unsigned int repeats, const std::string & what)
{
  const size_t             bytes = count * sizeof(float);
  const std::vector<float> expected(host, host + count);
  DeviceMemory             device = AllocateDeviceMemory(bytes);
  const auto               noop = [] {};
  const Samples            upload = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    noop,
    [&] { CUDA_CHECK(cudaMemcpy(device.get(), host, bytes, cudaMemcpyHostToDevice)); },
    noop);
  CheckDeviceBuffer(device.get(), expected.data(), count, what + " host->device");
  const Samples download = TimeOnHost(
    WarmUpRuns,
    repeats,
    true,
    noop,
    [&] { CUDA_CHECK(cudaMemcpy(host, device.get(), bytes, cudaMemcpyDeviceToHost)); },
    noop);
  std::fill(host, host + count, std::numeric_limits<float>::quiet_NaN());
  CUDA_CHECK(cudaMemcpy(host, device.get(), bytes, cudaMemcpyDeviceToHost));
  CheckPixels(host, expected.data(), count, what + " device->host");
  return { ToBandwidth(upload, static_cast<double>(bytes)), ToBandwidth(download, static_cast<double>(bytes)) };
}
} // namespace

/** The CudaImage transfer rows; returns the pinned cudaMemcpy bandwidths
 * {host->device, device->host} in GB/s (medians), the ceilings of later rows. */
std::pair<double, double>
MeasureTransfers(Results & results, unsigned long n, const Options & options)
{
  using CudaImageType = itk::CudaImage<float, 3>;
  using PlainImageType = itk::Image<float, 3>;
  const size_t      count = static_cast<size_t>(n) * n * n;
  const std::string shape = CubeShape(n);
  std::cout << "[" << shape << "] host<->device transfers\n";

  // A CudaImage that allocated its own host buffer, against pinned memory.
  std::pair<Samples, Samples> pinned;
  {
    {
      PinnedMemory pinnedBuffer = AllocatePinnedMemory(count * sizeof(float));
      auto *       host = static_cast<float *>(pinnedBuffer.get());
      FillPattern(host, count, 0.5, 1.5, 1);
      pinned = TimeRawTransfers(host, count, options.repeats, "pinned cudaMemcpy");
    }
    auto                     image = MakeVolume<CudaImageType>(n, 0.5, 1.5, 2);
    float *                  host = image->GetBufferPointer();
    const std::vector<float> expected(host, host + count);
    const auto own = TimeImageTransfers(image, host, expected, options.repeats, "CudaImage (own host buffer)");
    results.Add({ "CudaImage upload, own host buffer",
                  n,
                  shape,
                  own.first,
                  "GB/s",
                  "cudaMemcpy H2D, pinned host",
                  pinned.first.median });
    results.Add({ "CudaImage download, own host buffer",
                  n,
                  shape,
                  own.second,
                  "GB/s",
                  "cudaMemcpy D2H, pinned host",
                  pinned.second.median });
  }

  // A CudaImage sharing an itk::Image's (pageable) buffer, against pageable memory.
  {
    std::pair<Samples, Samples> pageable;
    {
      std::unique_ptr<float[]> pageableBuffer(new float[count]);
      FillPattern(pageableBuffer.get(), count, 0.5, 1.5, 3);
      pageable = TimeRawTransfers(pageableBuffer.get(), count, options.repeats, "pageable cudaMemcpy");
    }
    auto                     plain = MakeVolume<PlainImageType>(n, 0.5, 1.5, 4);
    float *                  host = plain->GetBufferPointer();
    const std::vector<float> expected(host, host + count);
    auto                     toCuda = itk::CudaImageFromImageFilter<PlainImageType>::New();
    toCuda->SetInput(plain);
    toCuda->Update();
    CudaImageType::Pointer image = toCuda->GetOutput();
    if (static_cast<const CudaImageType *>(image.GetPointer())->GetBufferPointer() != host)
    {
      itkGenericExceptionMacro("CudaImageFromImageFilter's output does not share the itk::Image's buffer "
                               "(expected the host pointer "
                               << static_cast<const void *>(host) << "): the foreign-buffer rows would be wrong");
    }
    const auto foreign = TimeImageTransfers(image, host, expected, options.repeats, "CudaImage (foreign buffer)");
    results.Add({ "CudaImage upload, foreign pageable buffer",
                  n,
                  shape,
                  foreign.first,
                  "GB/s",
                  "cudaMemcpy H2D, pageable host",
                  pageable.first.median });
    results.Add({ "CudaImage download, foreign pageable buffer",
                  n,
                  shape,
                  foreign.second,
                  "GB/s",
                  "cudaMemcpy D2H, pageable host",
                  pageable.second.median });
  }
  return { pinned.first.median, pinned.second.median };
}
} // namespace CudaBenchmark
