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

// Drop-in safety: every way ITK code writes the pixels of an itk::Image works
// the same on a CudaImage whose current copy is on the GPU, and the next GPU
// read sees the write. Each case starts from a GPU result that differs from
// the stale CPU copy, writes through one ITK path, and compares the GPU copy
// with what an itk::Image would hold.

#include "itkCudaImage.h"
#include "itkCudaProcessTransfers.h"
#include "itkCudaTestUtilities.h"
#include "itkImageAlgorithm.h"
#include "itkImageLinearIteratorWithIndex.h"
#include "itkImageRandomIteratorWithIndex.h"
#include "itkImageRegionIterator.h"
#include "itkImageRegionIteratorWithIndex.h"
#include "itkImageScanlineIterator.h"
#include "itkImageSliceIteratorWithIndex.h"
#include "itkMultiplyImageFilter.h"
#include "itkNeighborhoodIterator.h"
#include "itkShapedNeighborhoodIterator.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace
{
using ImageType = itk::CudaImage<float, 3>;
using CPUImageType = itk::Image<float, 3>;
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::DeviceCopy;
using itk::CudaTest::TransfersAre;

constexpr float StaleCPUValue = 1.0f;
constexpr float GPUValue = 3.0f;
constexpr float WrittenValue = 7.0f;

const ImageType::SizeType   ImageSize = { { 12, 10, 6 } };
const ImageType::RegionType WriteRegion({ { 2, 3, 1 } }, { { 4, 3, 2 } });
const ImageType::IndexType  WriteIndex = { { 5, 4, 3 } };


std::vector<float>
ReadDeviceMemory(const void * device, size_t count)
{
  std::vector<float> values(count);
  itk::CudaTest::CopyToHost(values.data(), device, count * sizeof(float));
  return values;
}

/** An image whose CPU copy holds StaleCPUValue and whose current copy, on the
 * GPU, holds GPUValue (as after a CUDA filter). */
ImageType::Pointer
GPUCurrentImage()
{
  auto image = ImageType::New();
  image->SetRegions(ImageSize);
  image->Allocate();
  image->FillBuffer(StaleCPUValue);
  const auto         manager = image->GetCudaDataManager();
  std::vector<float> values(manager->GetBufferSize() / sizeof(float), GPUValue);
  void *             device = manager->GetGPUBufferPointer();
  itk::CudaTest::CopyToDevice(device, values.data(), manager->GetBufferSize());
  EXPECT_TRUE(manager->IsCPUBufferDirty());
  manager->ResetTransferStatistics();
  return image;
}

size_t
Offset(const ImageType * image, const ImageType::IndexType & index)
{
  return static_cast<size_t>(image->ComputeOffset(index));
}

/** GPUValue everywhere but at `written`, which holds WrittenValue. */
std::vector<float>
Expected(const ImageType * image, const std::set<size_t> & written)
{
  std::vector<float> values(image->GetBufferedRegion().GetNumberOfPixels(), GPUValue);
  for (const size_t offset : written)
  {
    values[offset] = WrittenValue;
  }
  return values;
}

// Without touching the pixel buffer (which would itself be an access).
std::set<size_t>
OffsetsOf(const ImageType * image, const ImageType::RegionType & region)
{
  std::set<size_t>     offsets;
  ImageType::IndexType index;
  const auto           first = region.GetIndex();
  const auto           size = region.GetSize();
  for (index[2] = first[2]; index[2] < first[2] + static_cast<itk::IndexValueType>(size[2]); ++index[2])
  {
    for (index[1] = first[1]; index[1] < first[1] + static_cast<itk::IndexValueType>(size[1]); ++index[1])
    {
      for (index[0] = first[0]; index[0] < first[0] + static_cast<itk::IndexValueType>(size[0]); ++index[0])
      {
        offsets.insert(Offset(image, index));
      }
    }
  }
  return offsets;
}

/** One ITK way of writing pixels: it writes WrittenValue and returns the offsets it wrote. */
struct Writer
{
  const char *                                    Name;
  std::function<std::set<size_t>(ImageType *)> Write;
};

std::vector<Writer>
Writers()
{
  return {
    { "ImageRegionIterator",
      [](ImageType * image) {
        for (itk::ImageRegionIterator<ImageType> it(image, WriteRegion); !it.IsAtEnd(); ++it)
        {
          it.Set(WrittenValue);
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ImageRegionIteratorWithIndex",
      [](ImageType * image) {
        for (itk::ImageRegionIteratorWithIndex<ImageType> it(image, WriteRegion); !it.IsAtEnd(); ++it)
        {
          it.Set(WrittenValue);
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ImageScanlineIterator",
      [](ImageType * image) {
        for (itk::ImageScanlineIterator<ImageType> it(image, WriteRegion); !it.IsAtEnd(); it.NextLine())
        {
          for (; !it.IsAtEndOfLine(); ++it)
          {
            it.Set(WrittenValue);
          }
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ImageLinearIteratorWithIndex",
      [](ImageType * image) {
        itk::ImageLinearIteratorWithIndex<ImageType> it(image, WriteRegion);
        it.SetDirection(1);
        for (; !it.IsAtEnd(); it.NextLine())
        {
          for (; !it.IsAtEndOfLine(); ++it)
          {
            it.Set(WrittenValue);
          }
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ImageSliceIteratorWithIndex",
      [](ImageType * image) {
        itk::ImageSliceIteratorWithIndex<ImageType> it(image, WriteRegion);
        it.SetFirstDirection(0);
        it.SetSecondDirection(2);
        for (; !it.IsAtEnd(); it.NextSlice())
        {
          for (; !it.IsAtEndOfSlice(); it.NextLine())
          {
            for (; !it.IsAtEndOfLine(); ++it)
            {
              it.Set(WrittenValue);
            }
          }
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "NeighborhoodIterator",
      [](ImageType * image) {
        itk::NeighborhoodIterator<ImageType>::RadiusType radius;
        radius.Fill(1);
        for (itk::NeighborhoodIterator<ImageType> it(radius, image, WriteRegion); !it.IsAtEnd(); ++it)
        {
          it.SetCenterPixel(WrittenValue);
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ShapedNeighborhoodIterator",
      [](ImageType * image) {
        itk::ShapedNeighborhoodIterator<ImageType>::RadiusType radius;
        radius.Fill(1);
        itk::ShapedNeighborhoodIterator<ImageType> it(radius, image, WriteRegion);
        it.ActivateOffset(itk::ShapedNeighborhoodIterator<ImageType>::OffsetType{ { 0, 0, 0 } });
        for (; !it.IsAtEnd(); ++it)
        {
          it.SetCenterPixel(WrittenValue);
        }
        return OffsetsOf(image, WriteRegion);
      } },
    { "ImageRandomIteratorWithIndex",
      [](ImageType * image) {
        std::set<size_t>                                written;
        itk::ImageRandomIteratorWithIndex<ImageType> it(image, WriteRegion);
        it.SetNumberOfSamples(10);
        it.ReinitializeSeed(7);
        for (; !it.IsAtEnd(); ++it)
        {
          it.Set(WrittenValue);
          written.insert(Offset(image, it.GetIndex()));
        }
        return written;
      } },
    { "const GetBufferPointer",
      [](ImageType * image) {
        const ImageType * constImage = image;
        const_cast<float *>(constImage->GetBufferPointer())[Offset(image, WriteIndex)] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "GetBufferPointer",
      [](ImageType * image) {
        image->GetBufferPointer()[Offset(image, WriteIndex)] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "GetPixelContainer()->GetBufferPointer",
      [](ImageType * image) {
        image->GetPixelContainer()->GetBufferPointer()[Offset(image, WriteIndex)] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "GetPixelContainer operator[]",
      [](ImageType * image) {
        (*image->GetPixelContainer())[Offset(image, WriteIndex)] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "const GetPixelContainer",
      [](ImageType * image) {
        const ImageType * constImage = image;
        auto * container = const_cast<ImageType::PixelContainer *>(constImage->GetPixelContainer());
        container->GetBufferPointer()[Offset(image, WriteIndex)] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "SetPixel",
      [](ImageType * image) {
        image->SetPixel(WriteIndex, WrittenValue);
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "GetPixel",
      [](ImageType * image) {
        image->GetPixel(WriteIndex) = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "operator[]",
      [](ImageType * image) {
        (*image)[WriteIndex] = WrittenValue;
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "GetPixelAccessor",
      [](ImageType * image) {
        image->GetPixelAccessor().Set(image->GetBufferPointer()[Offset(image, WriteIndex)], WrittenValue);
        return std::set<size_t>{ Offset(image, WriteIndex) };
      } },
    { "ImageAlgorithm::Copy",
      [](ImageType * image) {
        auto source = CPUImageType::New();
        source->SetRegions(WriteRegion);
        source->Allocate();
        source->FillBuffer(WrittenValue);
        itk::ImageAlgorithm::Copy(source.GetPointer(), image, WriteRegion, WriteRegion);
        return OffsetsOf(image, WriteRegion);
      } },
    { "FillBuffer",
      [](ImageType * image) {
        image->FillBuffer(WrittenValue);
        return OffsetsOf(image, image->GetBufferedRegion());
      } },
  };
}

class CudaImageCoherence : public itk::CudaTest::BackendTest
{};

TEST_P(CudaImageCoherence, EveryITKWriteIsSeenByTheNextGPURead)
{
  for (const Writer & writer : Writers())
  {
    SCOPED_TRACE(writer.Name);
    auto                   image = GPUCurrentImage();
    const std::set<size_t> written = writer.Write(image);
    ASSERT_FALSE(written.empty());
    EXPECT_EQ(DeviceCopy(image), Expected(image, written));
    // And the CPU side holds the same, as an itk::Image would.
    const auto * host = static_cast<const float *>(image->GetDataManager()->GetConstCPUBufferPointer());
    EXPECT_EQ(std::vector<float>(host, host + image->GetBufferedRegion().GetNumberOfPixels()),
              Expected(image, written));
  }
}

TEST_P(CudaImageCoherence, OverwritingTheWholeBufferDownloadsNothing)
{
  auto image = GPUCurrentImage();
  image->FillBuffer(WrittenValue);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 0, 0));
  EXPECT_EQ(DeviceCopy(image), std::vector<float>(image->GetBufferedRegion().GetNumberOfPixels(), WrittenValue));
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 0));

  auto overwritten = GPUCurrentImage();
  auto * host = static_cast<float *>(overwritten->GetDataManager()->GetCPUBufferPointerForOverwrite());
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(overwritten->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_FALSE(overwritten->GetCudaDataManager()->IsCPUBufferDirty());
  EXPECT_TRUE(TransfersAre(overwritten->GetCudaDataManager(), 0, 0));
}

TEST_P(CudaImageCoherence, AllocateKeepsTheCurrentCopyAsItKeepsTheBuffer)
{
  // itk::Image::Allocate() on an allocated image keeps its pixels, even with
  // initializePixels: the GPU result must survive it, without a download.
  auto image = GPUCurrentImage();
  image->Allocate(true);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 0, 0));
  EXPECT_EQ(DeviceCopy(image), std::vector<float>(image->GetBufferedRegion().GetNumberOfPixels(), GPUValue));
  const ImageType * constImage = image;
  EXPECT_EQ(constImage->GetPixel(WriteIndex), GPUValue);

  auto reference = CPUImageType::New();
  reference->SetRegions(ImageSize);
  reference->Allocate();
  reference->FillBuffer(GPUValue);
  reference->Allocate(true);
  EXPECT_EQ(reference->GetPixel(WriteIndex), constImage->GetPixel(WriteIndex));

  // A fresh image is new data: nothing to download either.
  auto fresh = ImageType::New();
  fresh->SetRegions(ImageSize);
  fresh->Allocate(true);
  EXPECT_EQ(DeviceCopy(fresh), std::vector<float>(fresh->GetBufferedRegion().GetNumberOfPixels(), 0.0f));
  EXPECT_TRUE(TransfersAre(fresh->GetCudaDataManager(), 1, 0));
}

TEST_P(CudaImageCoherence, ACPUInPlaceFilterOnAGPUResultIsSeenOnTheGPU)
{
  auto image = GPUCurrentImage();
  using MultiplyType = itk::MultiplyImageFilter<ImageType, ImageType, ImageType>;
  auto multiply = MultiplyType::New();
  multiply->SetInput1(image);
  multiply->SetConstant2(2.0f);
  multiply->InPlaceOn();
  multiply->Update();
  ImageType::Pointer output = multiply->GetOutput();
  EXPECT_EQ(DeviceCopy(output), std::vector<float>(output->GetBufferedRegion().GetNumberOfPixels(), 2.0f * GPUValue));
}

TEST_P(CudaImageCoherence, ARepointedPixelContainerHoldsTheData)
{
  for (const bool throughTheImageBaseClass : { false, true })
  {
    SCOPED_TRACE(throughTheImageBaseClass ? "through itk::Image" : "through CudaImage");
    auto               image = GPUCurrentImage();
    const size_t       pixels = image->GetBufferedRegion().GetNumberOfPixels();
    std::vector<float> memory(pixels, WrittenValue);
    // RTK's import filter re-points the container through an itk::Image pointer.
    ImageType::PixelContainer * container =
      throughTheImageBaseClass ? static_cast<CPUImageType *>(image.GetPointer())->GetPixelContainer()
                               : image->GetPixelContainer();
    container->SetImportPointer(memory.data(), pixels, false);
    EXPECT_EQ(DeviceCopy(image), memory);
    // Later GPU results come down into the new memory.
    std::vector<float> gpu(pixels, GPUValue);
    void *             device = image->GetCudaDataManager()->GetGPUBufferPointer();
    itk::CudaTest::CopyToDevice(device, gpu.data(), pixels * sizeof(float));
    image->GetDataManager()->UpdateCPUBuffer();
    EXPECT_EQ(memory, gpu);
  }
}

TEST_P(CudaImageCoherence, ConstReadsKeepTheDeviceBufferButMarkItStale)
{
  auto              image = GPUCurrentImage();
  const ImageType * constImage = image;
  const void *      device = image->GetCudaDataManager()->GetConstGPUBufferPointer();
  EXPECT_EQ(constImage->GetBufferPointer()[0], GPUValue);
  EXPECT_TRUE(image->GetCudaDataManager()->IsGPUBufferDirty()); // an iterator may have written
  EXPECT_EQ(image->GetCudaDataManager()->GetGPUBufferSize(), image->GetDataManager()->GetBufferSize());
  // Reading pixel values through const GetPixel() is read-only by type.
  image->GetCudaDataManager()->GetConstGPUBufferPointer();
  EXPECT_EQ(constImage->GetPixel(WriteIndex), GPUValue);
  EXPECT_FALSE(image->GetCudaDataManager()->IsGPUBufferDirty());
  EXPECT_EQ(image->GetCudaDataManager()->GetConstGPUBufferPointer(), device);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 1, 1));
  // The next CPU write releases the kept buffer (ReleaseDirtyGPUBuffer is on).
  image->GetCudaDataManager()->SetReleaseDirtyGPUBuffer(true);
  constImage->GetBufferPointer();
  image->SetPixel(WriteIndex, WrittenValue);
  EXPECT_EQ(image->GetCudaDataManager()->GetGPUBufferSize(), 0u);
}

TEST_P(CudaImageCoherence, ReadOnlyConstAccessIsAnOptInThatSkipsTheUpload)
{
  auto image = GPUCurrentImage();
  image->GetCudaDataManager()->ConstCPUAccessReadOnlyOn();
  float sum = 0.0f;
  for (itk::ImageRegionConstIterator<ImageType> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    sum += it.Get();
  }
  EXPECT_EQ(sum, GPUValue * static_cast<float>(image->GetBufferedRegion().GetNumberOfPixels()));
  EXPECT_FALSE(image->GetCudaDataManager()->IsGPUBufferDirty());
  DeviceCopy(image);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 0, 1)); // one download, no upload
  // Its risk: a write through an iterator is invisible to the GPU until Modified().
  for (itk::ImageRegionIterator<ImageType> it(image, WriteRegion); !it.IsAtEnd(); ++it)
  {
    it.Set(WrittenValue);
  }
  EXPECT_EQ(DeviceCopy(image)[Offset(image, WriteRegion.GetIndex())], GPUValue);
  image->Modified();
  EXPECT_EQ(DeviceCopy(image), Expected(image, OffsetsOf(image, WriteRegion)));
}

TEST_P(CudaImageCoherence, PoliciesAreSharedByGraftedImages)
{
  auto a = GPUCurrentImage();
  auto b = ImageType::New();
  b->Graft(a);
  a->GetCudaDataManager()->SetConstCPUAccessReadOnly(true);
  a->GetCudaDataManager()->SetReleaseDirtyGPUBuffer(false);
  EXPECT_TRUE(b->GetCudaDataManager()->GetConstCPUAccessReadOnly());
  EXPECT_FALSE(b->GetCudaDataManager()->GetReleaseDirtyGPUBuffer());
  b->GetCudaDataManager()->SetReleaseDirtyGPUBuffer(true);
  EXPECT_TRUE(a->GetCudaDataManager()->GetReleaseDirtyGPUBuffer());
}

// --- views of the device buffer (CUDA Array Interface, DLPack, borrowers)

TEST_P(CudaImageCoherence, AViewSurvivesANonConstAccessThroughAGraftedImage)
{
  auto a = GPUCurrentImage();
  auto b = ImageType::New();
  b->Graft(a);
  const size_t              pixels = a->GetBufferedRegion().GetNumberOfPixels();
  itk::CudaGPUBufferExport view = a->GetCudaDataManager()->ExportGPUBuffer();
  ASSERT_NE(view.Pointer, nullptr);
  EXPECT_EQ(view.Bytes, pixels * sizeof(float));
  EXPECT_TRUE(b->GetCudaDataManager()->IsGPUBufferExported());
  b->GetBufferPointer(); // non-const CPU access through the graft: the release policy would free it
  if (m_Emulated)
  {
    EXPECT_TRUE(m_Emulated->IsDevicePointer(view.Pointer));
  }
  EXPECT_EQ(LiveAllocations(), 1u);
  EXPECT_EQ(ReadDeviceMemory(view.Pointer, pixels), std::vector<float>(pixels, GPUValue));
  // A CPU write through B reaches the view at the next GPU use of the image, in place.
  b->SetPixel(WriteIndex, WrittenValue);
  EXPECT_EQ(a->GetCudaDataManager()->GetConstGPUBufferPointer(), view.Pointer);
  EXPECT_EQ(ReadDeviceMemory(view.Pointer, pixels), Expected(a, { Offset(a, WriteIndex) }));
  // Without views the policy applies again.
  view.Hold.reset();
  EXPECT_FALSE(a->GetCudaDataManager()->IsGPUBufferExported());
  b->SetPixel(WriteIndex, GPUValue);
  EXPECT_EQ(a->GetCudaDataManager()->GetGPUBufferSize(), 0u);
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaImageCoherence, AViewKeepsItsMemoryWhateverTheImageDoes)
{
  auto                     image = GPUCurrentImage();
  const size_t             pixels = image->GetBufferedRegion().GetNumberOfPixels();
  itk::CudaGPUBufferExport view = image->GetCudaDataManager()->ExportGPUBuffer(false);
  // Another size, then nothing at all: the image lets go of the buffer, the view does not.
  ImageType::SizeType smaller = ImageSize;
  smaller[2] = 2;
  image->SetRegions(smaller);
  image->Allocate();
  image->GetCudaDataManager()->GetConstGPUBufferPointer();
  image->Initialize();
  EXPECT_EQ(LiveAllocations(), 1u);
  EXPECT_EQ(ReadDeviceMemory(view.Pointer, pixels), std::vector<float>(pixels, GPUValue));
  auto copy = view.Hold;
  view.Hold.reset();
  EXPECT_EQ(LiveAllocations(), 1u);
  copy.reset();
  EXPECT_EQ(LiveAllocations(), 0u); // the last holder freed it
}

TEST_P(CudaImageCoherence, AnImageBorrowingAnotherOnesBufferHoldsIt)
{
  auto         a = GPUCurrentImage();
  const size_t pixels = a->GetBufferedRegion().GetNumberOfPixels();
  auto         c = ImageType::New();
  c->SetRegions(ImageSize);
  c->GetCudaDataManager()->SetBufferSize(pixels * sizeof(float));
  c->GetCudaDataManager()->SetGPUBufferPointer(a->GetCudaDataManager()->GetGPUBufferPointer());
  c->GetCudaDataManager()->SetCPUDirtyFlag(true);
  c->GetCudaDataManager()->SetGPUDirtyFlag(false);
  EXPECT_TRUE(a->GetCudaDataManager()->IsGPUBufferExported());
  const void * shared = a->GetCudaDataManager()->GetConstGPUBufferPointer();
  a->SetPixel(WriteIndex, WrittenValue); // would release A's stale buffer without the borrower
  a->Initialize();
  EXPECT_EQ(LiveAllocations(), 1u);
  EXPECT_EQ(DeviceCopy(c), std::vector<float>(pixels, GPUValue));
  EXPECT_EQ(c->GetCudaDataManager()->GetConstGPUBufferPointer(), shared);
  c->Initialize();
  EXPECT_EQ(LiveAllocations(), 0u);
}

TEST_P(CudaImageCoherence, AHeldBufferIsNotMovedToAnotherDevice)
{
  if (m_Emulated)
  {
    m_Emulated->SetNumberOfDevices(2);
  }
  else if (itk::CudaTest::DeviceCount() < 2)
  {
    GTEST_SKIP() << "needs two CUDA devices";
  }
  auto       image = GPUCurrentImage();
  const int  home = image->GetCudaDataManager()->GetDevice();
  const int  other = home == 0 ? 1 : 0;
  auto       view = image->GetCudaDataManager()->ExportGPUBuffer();
  const auto message = ExceptionMessage([&] { image->GetCudaDataManager()->SetDevice(other); });
  EXPECT_NE(message.find("a view holds its device buffer"), std::string::npos) << message;
  EXPECT_EQ(image->GetCudaDataManager()->GetDevice(), home);
  EXPECT_EQ(image->GetCudaDataManager()->GetConstGPUBufferPointer(), view.Pointer);
  view.Hold.reset();
  image->GetCudaDataManager()->SetDevice(other);
  EXPECT_EQ(image->GetCudaDataManager()->GetDevice(), other);
  EXPECT_EQ(DeviceCopy(image), std::vector<float>(image->GetBufferedRegion().GetNumberOfPixels(), GPUValue));
}

// --- host buffers made at the first host use (HostAllocationOnFirstUse)

size_t
HostPixels(ImageType * image)
{
  return static_cast<CPUImageType *>(image)->GetPixelContainer()->Size(); // without a CudaImage accessor
}

ImageType::Pointer
SizedOnly()
{
  auto image = ImageType::New();
  image->HostAllocationOnFirstUseOn();
  image->SetRegions(ImageType::SizeType{ { 64, 32, 16 } }); // 128 KiB: above the pinned threshold
  image->Allocate();
  return image;
}

TEST_P(CudaImageCoherence, PeekingTheHostBufferMakesNoneAndMovesNothing)
{
  auto       image = SizedOnly();
  const auto manager = image->GetCudaDataManager();
  EXPECT_EQ(manager->PeekCPUBuffer(), nullptr);
  const size_t       pixels = image->GetBufferedRegion().GetNumberOfPixels();
  std::vector<float> gpu(pixels, GPUValue);
  itk::CudaTest::CopyToDevice(manager->GetGPUBufferPointerForOverwrite(), gpu.data(), pixels * sizeof(float));
  EXPECT_EQ(manager->PeekCPUBuffer(), nullptr);
  EXPECT_EQ(HostPixels(image), 0u);
  EXPECT_TRUE(manager->IsCPUBufferDirty());
  EXPECT_FALSE(manager->IsGPUBufferDirty());
  const ImageType * constImage = image;
  const float *     host = constImage->GetBufferPointer(); // the first host use makes it
  EXPECT_EQ(manager->PeekCPUBuffer(), host);
  EXPECT_TRUE(TransfersAre(manager, 0, 1));
  EXPECT_EQ(manager->PeekCPUBuffer(), host);
  EXPECT_TRUE(TransfersAre(manager, 0, 1)) << "peeking copies nothing";
}

TEST_P(CudaImageCoherence, AGPUOnlyImageHasNoHostBufferUntilTheHostReadsIt)
{
  auto image = SizedOnly();
  EXPECT_EQ(HostPixels(image), 0u);
  EXPECT_EQ(image->GetCudaDataManager()->GetBufferSize(), 64u * 32u * 16u * sizeof(float));
  const size_t       pixels = image->GetBufferedRegion().GetNumberOfPixels();
  std::vector<float> gpu(pixels, GPUValue);
  void *             device = image->GetCudaDataManager()->GetGPUBufferPointerForOverwrite();
  itk::CudaTest::CopyToDevice(device, gpu.data(), pixels * sizeof(float));
  EXPECT_EQ(HostPixels(image), 0u); // a GPU-only intermediate: no host memory
  const ImageType * constImage = image;
  EXPECT_EQ(constImage->GetPixel(WriteIndex), GPUValue); // the first host read makes it
  EXPECT_EQ(HostPixels(image), pixels);
  EXPECT_TRUE(TransfersAre(image->GetCudaDataManager(), 0, 1));
  // Allocated again before any host use, it keeps its GPU result.
  auto again = SizedOnly();
  itk::CudaTest::CopyToDevice( again->GetCudaDataManager()->GetGPUBufferPointerForOverwrite(), gpu.data(), pixels * sizeof(float));
  again->Allocate();
  EXPECT_EQ(DeviceCopy(again), gpu);
}

TEST_P(CudaImageCoherence, EveryHostAccessMakesAPendingHostBuffer)
{
  const std::vector<std::pair<const char *, std::function<void(ImageType *)>>> accesses = {
    { "const GetBufferPointer", [](ImageType * image) { static_cast<const ImageType *>(image)->GetBufferPointer(); } },
    { "GetBufferPointer", [](ImageType * image) { image->GetBufferPointer(); } },
    { "FillBuffer", [](ImageType * image) { image->FillBuffer(WrittenValue); } },
    { "SetPixel", [](ImageType * image) { image->SetPixel(WriteIndex, WrittenValue); } },
    { "GetPixelContainer", [](ImageType * image) { image->GetPixelContainer(); } },
    { "ImageRegionIterator",
      [](ImageType * image) { itk::ImageRegionIterator<ImageType>(image, WriteRegion).Set(WrittenValue); } },
    { "GetConstCPUBufferPointer", [](ImageType * image) { image->GetDataManager()->GetConstCPUBufferPointer(); } },
  };
  for (const auto & access : accesses)
  {
    SCOPED_TRACE(access.first);
    auto image = SizedOnly();
    access.second(image);
    EXPECT_EQ(HostPixels(image), image->GetBufferedRegion().GetNumberOfPixels());
    EXPECT_NE(image->Superclass::GetBufferPointer(), nullptr);
  }
}

// The pixels of an image Allocate() only sized are undefined and nowhere: a
// GPU access uploads nothing and makes no host buffer (the 2.x filters',
// RTK's, ask GetGPUBufferPointer() of the outputs they overwrite).
TEST_P(CudaImageCoherence, AGPUAccessOfASizedOnlyImageUploadsNothing)
{
  const std::vector<std::pair<const char *, std::function<void *(itk::CudaDataManager *)>>> accesses = {
    { "GetGPUBufferPointer", [](itk::CudaDataManager * manager) { return manager->GetGPUBufferPointer(); } },
    { "GetConstGPUBufferPointer",
      [](itk::CudaDataManager * manager) { return const_cast<void *>(manager->GetConstGPUBufferPointer()); } },
    { "UpdateGPUBuffer",
      [](itk::CudaDataManager * manager) {
        manager->UpdateGPUBuffer();
        return const_cast<void *>(manager->GetConstGPUBufferPointer());
      } },
  };
  for (const auto & access : accesses)
  {
    SCOPED_TRACE(access.first);
    auto         image = SizedOnly();
    const auto   manager = image->GetCudaDataManager();
    const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();
    void *       device = access.second(manager);
    EXPECT_EQ(HostPixels(image), 0u);
    EXPECT_TRUE(TransfersAre(manager, 0, 0));
    EXPECT_TRUE(manager->IsCPUBufferDirty());
    EXPECT_FALSE(manager->IsGPUBufferDirty());
    std::vector<float> gpu(pixels, GPUValue);
    itk::CudaTest::CopyToDevice(device, gpu.data(), pixels * sizeof(float)); // as the filter's kernel writes it
    const ImageType * constImage = image;
    EXPECT_EQ(constImage->GetPixel(WriteIndex), GPUValue); // made and brought down at the first host read
    EXPECT_EQ(HostPixels(image), pixels);
    EXPECT_TRUE(TransfersAre(manager, 0, 1));
  }
}

// Allocate(true) asks for zeros: a buffer only sized would hold garbage at
// its first use, so the host buffer is made (and zeroed) at once.
TEST_P(CudaImageCoherence, AllocateWithInitializedPixelsMakesTheHostBufferAtOnce)
{
  auto image = ImageType::New();
  image->HostAllocationOnFirstUseOn();
  image->SetRegions(ImageType::SizeType{ { 64, 32, 16 } });
  image->Allocate(true);
  const size_t pixels = image->GetBufferedRegion().GetNumberOfPixels();
  EXPECT_EQ(HostPixels(image), pixels);
  const float * host = static_cast<const ImageType *>(image.GetPointer())->GetBufferPointer();
  EXPECT_TRUE(std::all_of(host, host + pixels, [](float v) { return v == 0.0f; }));
  EXPECT_EQ(DeviceCopy(image), std::vector<float>(pixels, 0.0f));
}

TEST_P(CudaImageCoherence, TheProcessTotalsCountEveryManagersCopies)
{
  const itk::CudaTransferStatistics before = itk::CudaGetProcessTransferStatistics();
  auto                              kept = GPUCurrentImage(); // its own upload, not counted below
  const itk::CudaTransferStatistics madeKept = itk::CudaGetProcessTransferStatistics() - before;
  itk::CudaTransferStatistics       gone;
  {
    auto image = GPUCurrentImage();
    image->FillBuffer(WrittenValue);
    DeviceCopy(image); // one upload
    gone = image->GetCudaDataManager()->GetTransferStatistics();
  }
  static_cast<const ImageType *>(kept.GetPointer())->GetBufferPointer(); // one download
  const itk::CudaTransferStatistics keptCopies = kept->GetCudaDataManager()->GetTransferStatistics();
  kept->GetCudaDataManager()->ResetTransferStatistics(); // the totals keep them
  EXPECT_EQ(gone.HostToDeviceCount, 1u);
  EXPECT_EQ(keptCopies.DeviceToHostCount, 1u);
  const itk::CudaTransferStatistics added = itk::CudaGetProcessTransferStatistics() - before;
  const size_t                      bytes = kept->GetCudaDataManager()->GetBufferSize();
  EXPECT_EQ(added.HostToDeviceCount, 2 * madeKept.HostToDeviceCount + 1);
  EXPECT_EQ(added.HostToDeviceBytes, 2 * madeKept.HostToDeviceBytes + bytes);
  EXPECT_EQ(added.DeviceToHostCount, 2 * madeKept.DeviceToHostCount + 1);
  EXPECT_EQ(added.DeviceToHostBytes, 2 * madeKept.DeviceToHostBytes + bytes);
  EXPECT_EQ(added.PeerCount, 0u);
}

ITK_CUDA_INSTANTIATE_BACKEND_TESTS(CudaImageCoherence);

// ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY is read once per process: CTest runs
// this test in processes of their own with the variable set
// (CUDACOMMON_EXPECT_CONST_READ_ONLY says what to expect).
TEST(CudaImageCoherenceEnvironment, NewManagersFollowTheProcessSetting)
{
  const char * expected = std::getenv("CUDACOMMON_EXPECT_CONST_READ_ONLY");
  if (expected == nullptr)
  {
    GTEST_SKIP() << "run by CTest with ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY set";
  }
  EXPECT_EQ(itk::CudaDataManager::New()->GetConstCPUAccessReadOnly(), std::string(expected) == "1");
  EXPECT_EQ(ImageType::New()->GetCudaDataManager()->GetConstCPUAccessReadOnly(), std::string(expected) == "1");
}

TEST(CudaImageCoherenceEnvironment, ConstReadOnlyVariable)
{
  const char * saved = std::getenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY");
  const std::string restore = saved != nullptr ? saved : "";
  for (const char * on : { "1", "true", "ON", "yes" })
  {
    setenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY", on, 1);
    EXPECT_TRUE(itk::CudaDataManager::GetConstCPUAccessReadOnlyDefault()) << on;
  }
  for (const char * off : { "0", "false", "Off", "no", "", "maybe" })
  {
    setenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY", off, 1);
    EXPECT_FALSE(itk::CudaDataManager::GetConstCPUAccessReadOnlyDefault()) << off;
  }
  unsetenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY");
  EXPECT_FALSE(itk::CudaDataManager::GetConstCPUAccessReadOnlyDefault());
  if (saved != nullptr)
  {
    setenv("ITK_CUDA_CONST_CPU_ACCESS_READ_ONLY", restore.c_str(), 1);
  }
}
} // namespace
