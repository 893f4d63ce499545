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
#ifndef itkCudaElementwiseImageFilter_h
#define itkCudaElementwiseImageFilter_h

#include "itkCudaDeviceSplitter.h"
#include "itkCudaInPlaceImageFilter.h"
#include "itkCudaRegionGeometry.h"
#include "itkCudaStreamedTransform.h"
#include "itkImageRegion.h"

#include <memory>
#include <vector>

namespace itk
{
/** Call `function(inputOffset, outputOffset, geometry)` once per 3-D slab of
 * `outputRegion`, a region inside the buffer of `inputRegion` (both buffers
 * in ITK's order, x fastest): the slab's first input pixel and first output
 * pixel (offsets in pixels from the buffers' starts; the output buffer holds
 * `outputRegion` alone) and its box (CudaRegionGeometry). Images of up to
 * three dimensions have one slab; a 4-D region of n volumes has n.
 * \throws itk::ExceptionObject when `outputRegion` is not inside `inputRegion`. */
template <unsigned int VDimension, typename TFunction>
void
CudaForEachRegionSlab(const ImageRegion<VDimension> & inputRegion,
                      const ImageRegion<VDimension> & outputRegion,
                      TFunction &&                    function);

/** \class CudaElementwiseInput
 * \brief One input of an element-wise update, as CudaElementwiseImageFilter
 * sees it: an image (its data manager, buffered region and pixel size) or,
 * with Manager nullptr, a constant that the subclass's kernel supplies.
 * \ingroup CudaCommon */
template <unsigned int VDimension>
struct CudaElementwiseInput
{
  CudaDataManager *       Manager{ nullptr };
  ImageRegion<VDimension> BufferedRegion{};
  size_t                  PixelBytes{ 0 };
};

/** \class CudaElementwiseImageFilter
 * \brief Base class of CUDA filters whose output pixel depends on the
 * pixels of their inputs at the same place alone: a subclass writes the
 * kernels' launches, the base class the rest, for one input or several.
 *
 * The inputs of an update are GetElementwiseInputs(): by default the
 * primary input alone; a filter of several inputs (images, or constants
 * such as BinaryGeneratorImageFilter's SetConstant2()) lists them, in
 * order, and computes in GPUComputeInputs(). CudaUnaryFunctorImageFilter
 * and CudaBinaryFunctorImageFilter are its two instances.
 *
 * GPUGenerateData() moves every image input to the output's device and
 * calls GPUComputeInputs() on the whole buffer, shared between devices when
 * SetSplitDevices() or SetSplitAcrossAllDevices() asks for it
 * (CudaDeviceSplitter: each device gets a contiguous piece, which the
 * function computes on a stream of that device). Image inputs current only
 * on the host, in pinned memory, are streamed through the device in chunks
 * (SetTransferChunkBytes()). When the output region is a piece of a larger
 * input buffer (a StreamingImageFilter downstream of a fully buffered
 * image), an input of its own calls GPUComputeRegion() per 3-D slab of the
 * piece, on the output's device alone (its default copies the box into a
 * scratch buffer and runs GPUComputeElements() there; a subclass with a
 * kernel that reads the box directly overrides it); with several inputs,
 * each input larger than the piece is copied into a compact scratch buffer
 * first. Runs in place or not as CudaInPlaceImageFilter says (in place, the
 * output is the first input's buffer); with GPUEnabled off, or without a
 * CUDA device, the CPU parent computes the output. ProgressEvent and
 * AbortGenerateData work per streamed chunk.
 *
 * The compute functions queue their work on `stream` and return without
 * waiting; the pointers are device memory of the current device, and an
 * input may be `out` (in place).
 * \ingroup CudaCommon
 */
template <typename TInputImage,
          typename TOutputImage = TInputImage,
          typename TParentImageFilter = InPlaceImageFilter<TInputImage, TOutputImage>>
class ITK_TEMPLATE_EXPORT CudaElementwiseImageFilter
  : public CudaInPlaceImageFilter<TInputImage, TOutputImage, TParentImageFilter>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaElementwiseImageFilter);

  using Self = CudaElementwiseImageFilter;
  using GPUSuperclass = CudaInPlaceImageFilter<TInputImage, TOutputImage, TParentImageFilter>;
  using CPUSuperclass = TParentImageFilter;
  using Superclass = GPUSuperclass;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkCudaTypeMacro(CudaElementwiseImageFilter, CudaInPlaceImageFilter);

  using InputImageType = TInputImage;
  using OutputImageType = TOutputImage;
  using InputPixelType = typename TInputImage::PixelType;
  using OutputPixelType = typename TOutputImage::PixelType;
  using ElementwiseInput = CudaElementwiseInput<TOutputImage::ImageDimension>;

  /** The devices that share the work of an update and their weights (equal
   * when empty), as CudaDeviceSplitter::SetDevices() takes them. Empty (the
   * default): the output's device alone, which is also what one GPU gives.
   * Inputs and output may have pixels of any sizes.
   * \throws itk::ExceptionObject for repeated or negative devices or bad
   * weights; Update() throws for an index beyond the device count. */
  void
  SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights = {});
  const std::vector<int> &
  GetSplitDevices() const
  {
    return m_Splitter->GetDevices();
  }
  const std::vector<double> &
  GetSplitWeights() const
  {
    return m_Splitter->GetWeights();
  }

  /** Share the work of an update between every visible device, equally (on
   * one GPU it simply uses that one); Off returns to the output's device
   * alone. SetSplitDevices() replaces this choice. */
  void
  SetSplitAcrossAllDevices(bool all);
  bool
  GetSplitAcrossAllDevices() const
  {
    return m_Splitter->GetAllDevices();
  }
  itkBooleanMacro(SplitAcrossAllDevices);

  /** An input current only on the host, in pinned memory (a CudaImage whose
   * buffer CudaHostMemoryPool pinned, or one imported from cudaMallocHost),
   * of at least two chunks, with an output whose host buffer is pinned too
   * (in place: the same one), is streamed through the device: chunks of
   * TransferChunkBytes go up, through the kernel and down on TransferStreams
   * streams at once, so that the upload of one overlaps the download of
   * another (PCIe is full duplex). The output is then current on the host
   * and on the device; ProgressEvent fires per chunk, and AbortGenerateData
   * stops the update between chunks. 0 turns it off; the defaults (32 MiB,
   * 4 streams) are the best measured on an H200 (docs/performance.md). Any
   * other input goes up whole: a pageable one too, whose staged copy already
   * runs at the host's memcpy rate, the bound of a streamed one
   * (CudaStreamImagesFromHost()). */
  itkSetMacro(TransferChunkBytes, size_t);
  itkGetConstMacro(TransferChunkBytes, size_t);
  itkSetClampMacro(TransferStreams, unsigned int, 1, 8);
  itkGetConstMacro(TransferStreams, unsigned int);

  /** The splitter behind SetSplitDevices(): chunk size, pieces of the last update. */
  CudaDeviceSplitter &
  GetDeviceSplitter()
  {
    return *m_Splitter;
  }

protected:
  CudaElementwiseImageFilter() = default;
  ~CudaElementwiseImageFilter() override = default;

  void
  GPUGenerateData() override;

  /** False: the functions below queue their work on the stream they are given. */
  bool
  GPUGenerateDataUsesLegacyStream() const override
  {
    return false;
  }

  /** The inputs of this update, in order (an image input's data manager,
   * buffered region and pixel size, or a constant). The default: the
   * primary input alone.
   * \throws itk::ExceptionObject when an input is of no type the filter takes. */
  virtual std::vector<ElementwiseInput>
  GetElementwiseInputs() const;

  /** Compute `count` pixels from `in[k]`, the device pixels of input k of
   * GetElementwiseInputs() (nullptr for a constant), into `out`. The
   * default calls GPUComputeElements() with the one input. */
  virtual void
  GPUComputeInputs(const void * const * in, void * out, size_t count, cudaStream_t stream);

  /** Compute `count` pixels of `in` into `out`: what a filter of one input
   * overrides (the default throws: a filter of several inputs overrides
   * GPUComputeInputs() instead). */
  virtual void
  GPUComputeElements(const InputPixelType * in, OutputPixelType * out, size_t count, cudaStream_t stream);

  /** Compute the box `geometry` of `in` into the compact `out` (one 3-D slab
   * of a streamed piece). The default copies the box to a scratch buffer
   * allocated on `stream` and calls GPUComputeElements() on it. */
  virtual void
  GPUComputeRegion(const InputPixelType *     in,
                   const CudaRegionGeometry & geometry,
                   OutputPixelType *          out,
                   cudaStream_t               stream);

  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  /** The streamed path (see SetTransferChunkBytes() and
   * GPUStreamImagesFromHost()); false when it does not apply.
   * \throws itk::ProcessAborted when an observer aborts. */
  bool
  GPUStreamFromHost(const std::vector<ElementwiseInput> & inputs);

  std::unique_ptr<CudaDeviceSplitter> m_Splitter{ std::make_unique<CudaDeviceSplitter>() };
  size_t                              m_TransferChunkBytes{ CudaStreamedTransformSettings{}.ChunkBytes };
  unsigned int                        m_TransferStreams{ CudaStreamedTransformSettings{}.Streams };
};
} // namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkCudaElementwiseImageFilter.hxx"
#endif

#endif
