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
#include "itkCudaImageToImageFilter.h"
#include "itkCudaTestKernels.hcu"
#include "itkCudaTestUtilities.h"
#include "itkImageSource.h"
#include "itkShiftScaleImageFilter.h"

// A source whose CPU parent is an ImageSource, explicitly instantiated the way
// RTK instantiates its CUDA filters: every member must compile for it.
template class itk::CudaImageToImageFilter<itk::CudaImage<float, 2>,
                                           itk::CudaImage<float, 2>,
                                           itk::ImageSource<itk::CudaImage<float, 2>>>;

namespace
{
using itk::CudaTest::ExceptionMessage;
using itk::CudaTest::TransfersAre;
using CudaImage2 = itk::CudaImage<float, 2>;
using Image2 = itk::Image<float, 2>;

/** Adds a constant: CPU parent ShiftScaleImageFilter, GPU path a kernel from
 * the test's own .cu file. Output type is a template argument so that both a
 * CudaImage and a plain Image output are covered. */
template <typename TOutputImage>
class AddConstantFilter
  : public itk::CudaImageToImageFilter<CudaImage2, TOutputImage, itk::ShiftScaleImageFilter<CudaImage2, TOutputImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AddConstantFilter);
  using Self = AddConstantFilter;
  using Superclass =
    itk::CudaImageToImageFilter<CudaImage2, TOutputImage, itk::ShiftScaleImageFilter<CudaImage2, TOutputImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  SetConstant(float value)
  {
    this->SetShift(value);
  }

protected:
  AddConstantFilter() = default;

  void
  GPUGenerateData() override
  {
    const CudaImage2 * input = this->GetInput();
    TOutputImage *     output = this->GetOutput();
    const size_t       n = output->GetBufferedRegion().GetNumberOfPixels();
    const auto *       in = static_cast<const float *>(input->GetCudaDataManager()->GetConstGPUBufferPointer());
    WriteOutput(output, in, n, static_cast<float>(this->GetShift()));
  }

private:
  static void
  WriteOutput(itk::CudaImage<float, 2> * output, const float * in, size_t n, float value)
  {
    auto * out = static_cast<float *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    itk::CudaTest::AddConstant(n, in, out, value);
  }
  // A plain Image output: compute into a device scratch buffer, then copy down.
  static void
  WriteOutput(itk::Image<float, 2> * output, const float * in, size_t n, float value)
  {
    auto scratch = itk::GPUMemPointer::New();
    scratch->Allocate(n * sizeof(float));
    itk::CudaTest::AddConstant(n, in, static_cast<float *>(scratch->GetPointer()), value);
    CUDA_CHECK(cudaMemcpy(output->GetBufferPointer(), scratch->GetPointer(), n * sizeof(float), cudaMemcpyDeviceToHost));
  }
};

/** A CUDA source: fills its output with a value (parent ImageSource, no CPU path). */
class FillSource
  : public itk::CudaImageToImageFilter<CudaImage2, CudaImage2, itk::ImageSource<CudaImage2>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FillSource);
  using Self = FillSource;
  using Superclass = itk::CudaImageToImageFilter<CudaImage2, CudaImage2, itk::ImageSource<CudaImage2>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

protected:
  FillSource() = default;
  void
  GenerateOutputInformation() override
  {
    CudaImage2::RegionType region({ { 0, 0 } }, { { 33, 17 } });
    this->GetOutput()->SetLargestPossibleRegion(region);
  }
  void
  GPUGenerateData() override
  {
    CudaImage2 * output = this->GetOutput();
    auto *       out = static_cast<float *>(output->GetCudaDataManager()->GetGPUBufferPointerForOverwrite());
    itk::CudaTest::Fill(output->GetBufferedRegion().GetNumberOfPixels(), out, 2.5f);
  }
};

/** A filter with neither a GPU nor a CPU implementation. */
class NoImplementationFilter : public itk::CudaImageToImageFilter<CudaImage2, CudaImage2>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(NoImplementationFilter);
  using Self = NoImplementationFilter;
  using Superclass = itk::CudaImageToImageFilter<CudaImage2, CudaImage2>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

protected:
  NoImplementationFilter() = default;
};

CudaImage2::Pointer
MakeInput()
{
  auto image = CudaImage2::New();
  image->SetRegions(CudaImage2::SizeType{ { 45, 31 } });
  image->Allocate();
  float * pixels = image->GetBufferPointer();
  for (size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
  {
    pixels[i] = static_cast<float>(i % 97) * 0.5f;
  }
  return image;
}

template <typename TImage>
void
ExpectAdded(const CudaImage2 * input, const TImage * output, float value)
{
  const size_t n = input->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(output->GetBufferedRegion().GetNumberOfPixels(), n);
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i)
  {
    mismatches += output->GetBufferPointer()[i] != input->GetBufferPointer()[i] + value;
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(CudaImageToImageFilter, CudaImageToCudaImageOnEitherPath)
{
  for (const bool gpu : { true, false })
  {
    auto input = MakeInput();
    auto filter = AddConstantFilter<CudaImage2>::New();
    filter->SetInput(input);
    filter->SetConstant(3.0f);
    filter->SetGPUEnabled(gpu);
    EXPECT_EQ(filter->GetGPUEnabled(), gpu);
    filter->Update();
    ExpectAdded(input.GetPointer(), filter->GetOutput(), 3.0f);
    const bool ranOnGPU = gpu && itk::IsCudaAvailable();
    EXPECT_TRUE(TransfersAre(input->GetCudaDataManager(), ranOnGPU ? 1 : 0, 0));
    // The output was written on the device and never uploaded.
    EXPECT_TRUE(TransfersAre(filter->GetOutput()->GetCudaDataManager(), 0, ranOnGPU ? 1 : 0));
  }
}

TEST(CudaImageToImageFilter, CudaImageInputPlainImageOutput)
{
  auto input = MakeInput();
  auto filter = AddConstantFilter<Image2>::New();
  filter->SetInput(input);
  filter->SetConstant(-1.0f);
  filter->Update();
  ExpectAdded(input.GetPointer(), filter->GetOutput(), -1.0f);
}

TEST(CudaImageToImageFilter, ImageSourceParent)
{
  auto source = FillSource::New();
  if (!itk::IsCudaAvailable())
  {
    // No GPU and ImageSource has no CPU implementation: a clear error.
    const std::string message = ExceptionMessage([&] { source->Update(); });
    EXPECT_NE(message.find("no CUDA device is available"), std::string::npos) << message;
    EXPECT_NE(message.find("CPU implementation"), std::string::npos) << message;
    return;
  }
  source->Update();
  const CudaImage2 * output = source->GetOutput();
  EXPECT_EQ(output->GetBufferedRegion().GetNumberOfPixels(), 33u * 17u);
  const CudaImage2::IndexType last = { { 32, 16 } };
  EXPECT_EQ(output->GetPixel(last), 2.5f);
  EXPECT_EQ(output->GetBufferPointer()[0], 2.5f);
}

TEST(CudaImageToImageFilter, MissingImplementationsAreReported)
{
  auto filter = NoImplementationFilter::New();
  filter->SetInput(MakeInput());
  const std::string message = ExceptionMessage([&] { filter->Update(); });
  if (itk::IsCudaAvailable())
  {
    EXPECT_NE(message.find("has no GPU implementation"), std::string::npos) << message;
  }
  else
  {
    EXPECT_NE(message.find("no CUDA device is available"), std::string::npos) << message;
  }
}

TEST(CudaImageToImageFilter, GraftOutputChecksTheType)
{
  auto filter = AddConstantFilter<CudaImage2>::New();
  auto wrong = Image2::New();
  const std::string message = ExceptionMessage([&] { filter->GraftOutput(static_cast<itk::DataObject *>(wrong)); });
  EXPECT_NE(message.find("cannot graft a Image"), std::string::npos) << message;
  EXPECT_NE(ExceptionMessage([&] { filter->GraftOutput("Primary", static_cast<itk::DataObject *>(wrong)); })
              .find("cannot graft"),
            std::string::npos);

  auto right = MakeInput();
  filter->GraftOutput(right);
  EXPECT_TRUE(filter->GetOutput()->GetCudaDataManager()->SharesBuffersWith(right->GetCudaDataManager()));
  EXPECT_EQ(filter->GetOutput()->GetBufferedRegion(), right->GetBufferedRegion());

  // A plain Image output takes any Image, a CudaImage included.
  auto plain = AddConstantFilter<Image2>::New();
  EXPECT_NO_THROW(plain->GraftOutput(static_cast<itk::DataObject *>(right)));
}

TEST(CudaImageToImageFilter, PrintSelfShowsGPUEnabled)
{
  auto               filter = AddConstantFilter<CudaImage2>::New();
  std::ostringstream os;
  filter->Print(os);
  EXPECT_NE(os.str().find("GPUEnabled: On"), std::string::npos);
}
} // namespace
