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
#ifndef itkCudaDeviceSplitter_h
#define itkCudaDeviceSplitter_h

#include "itkCudaDataManager.h"

#include <functional>
#include <memory>
#include <ostream>
#include <vector>

namespace itk
{
/** \class CudaDeviceSplitter
 * \brief Shares an element-wise operation on one device buffer between
 * several devices.
 *
 * The buffer (input and output, which may be the same memory) lives on its
 * home device. Run() cuts its elements into contiguous pieces, one per
 * device, in proportion to the weights. The home device computes its piece
 * where it lies, on the home stream. Every other device copies its piece into
 * scratch buffers of its own (peer copies: NVLink or PCIe, see
 * CudaEnablePeerAccess()), computes it there and copies the result back, in
 * chunks spread over three streams so that copies in both directions and the
 * computation overlap. Run() only queues the work: the home stream is ordered
 * after all of it and the host does not wait.
 *
 * Whether it pays depends on the work: a device's piece costs it two peer
 * copies (in and out), so a kernel that only streams memory, like squaring,
 * runs faster on the device that holds the data than spread equally over
 * NVLink; give the home device the larger weight, or split kernels that
 * compute more per byte (docs/performance.md has the measurements).
 *
 * Scratch buffers (three chunks per remote device) and streams are kept for
 * the next Run() and released by the destructor, which first waits for the
 * queued work. Not thread-safe: one Run() at a time per object. On a failing
 * CUDA call Run() waits for what it queued and throws itk::ExceptionObject
 * naming the error.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaDeviceSplitter
{
public:
  /** Computes `count` elements of `in` into `out` (device memory of the
   * current device, possibly the same pointer), queued on `stream` (a stream
   * of the current device). Element i of the output may depend only on
   * element i of the input. */
  using ElementwiseFunction = std::function<void(const void * in, void * out, size_t count, cudaStream_t stream)>;

  /** The N-input form: computes `count` elements from `in[k]`, element i of
   * input k (nullptr where the caller passed no buffer for input k: a
   * constant the function supplies itself), into `out`, on `stream`. */
  using ElementwiseInputsFunction =
    std::function<void(const void * const * in, void * out, size_t count, cudaStream_t stream)>;

  /** One input buffer of an N-input Run(): device memory of the home
   * device, elements of ElementBytes bytes; Pointer nullptr for an input
   * that is no buffer (a constant). */
  struct Input
  {
    const void * Pointer;
    size_t       ElementBytes;
  };

  /** Elements [First, First + Count) computed by Device. */
  struct Piece
  {
    int    Device;
    size_t First;
    size_t Count;
  };

  CudaDeviceSplitter();
  ~CudaDeviceSplitter();
  CudaDeviceSplitter(const CudaDeviceSplitter &) = delete;
  CudaDeviceSplitter &
  operator=(const CudaDeviceSplitter &) = delete;

  /** The devices that share the work and their weights (empty weights:
   * equal shares; a zero weight leaves a device out). An empty device list
   * (the default) means the home device alone.
   * \throws itk::ExceptionObject for a negative or repeated device, weights
   * not matching the devices, a negative or non-finite weight, or weights
   * that are all zero. Indices beyond the device count are reported by Run(). */
  void
  SetDevices(const std::vector<int> & devices, const std::vector<double> & weights = {});
  const std::vector<int> &
  GetDevices() const
  {
    return m_Devices;
  }
  const std::vector<double> &
  GetWeights() const
  {
    return m_Weights;
  }

  /** Share the work between every visible device, equally, the home device
   * first; resolved at each Run(), so one GPU simply does it all. SetDevices()
   * switches this off. */
  void
  SetAllDevices();
  bool
  GetAllDevices() const
  {
    return m_AllDevices;
  }

  /** Size of the chunks a remote device's piece is copied in (default
   * 64 MiB; rounded to whole elements); each remote device keeps three. */
  void
  SetChunkBytes(size_t bytes);
  size_t
  GetChunkBytes() const
  {
    return m_ChunkBytes;
  }

  /** How Run() cuts `count` elements of `elementBytes` bytes: in device
   * order, one piece per device with a nonzero share, boundaries on
   * multiples of 256 bytes (of whole elements), sizes in proportion to the
   * weights (equal when empty). An empty `devices` gives one piece for
   * device -1 (the home device). */
  static std::vector<Piece>
  Partition(size_t                      count,
            size_t                      elementBytes,
            const std::vector<int> &    devices,
            const std::vector<double> & weights = {});

  /** Queue `function` over `count` elements of `elementBytes` bytes from `in`
   * to `out`, device memory of `homeDevice`, ordered after the work queued on
   * `homeStream` (a stream of `homeDevice`) and before the work queued there
   * later. The calling thread's current device is restored.
   * \throws itk::ExceptionObject for a device index beyond the device count,
   * or naming the CUDA error of a failing call. */
  void
  Run(const void *                in,
      void *                      out,
      size_t                      count,
      size_t                      elementBytes,
      int                         homeDevice,
      cudaStream_t                homeStream,
      const ElementwiseFunction & function);

  /** The same over N inputs of any element sizes into an output of
   * `outputElementBytes` bytes per element: pieces are cut on boundaries
   * that are multiples of 256 bytes in every buffer, and a remote device
   * copies each input's piece (not the constants) into its scratch and the
   * output's back. An output as wide as an input may be that input's
   * memory (in place).
   * \throws itk::ExceptionObject as Run() above. */
  void
  Run(const std::vector<Input> &        inputs,
      void *                            out,
      size_t                            outputElementBytes,
      size_t                            count,
      int                               homeDevice,
      cudaStream_t                      homeStream,
      const ElementwiseInputsFunction & function);

  /** The pieces of the last Run() (empty before the first). */
  const std::vector<Piece> &
  GetLastPieces() const
  {
    return m_LastPieces;
  }

  void
  Print(std::ostream & os) const;

private:
  static constexpr unsigned int NumberOfLanes = 3;

  /** The streams, events and scratch buffers kept between runs (owned by
   * the library's RAII types, src/itkCudaResources.h). */
  struct Resources;

  /** Returns how many of the device's streams it used. */
  unsigned int
  QueueRemotePiece(const Piece &                     piece,
                   const std::vector<Input> &        inputs,
                   char *                            out,
                   size_t                            outputElementBytes,
                   int                               homeDevice,
                   cudaEvent_t                       ready,
                   const ElementwiseInputsFunction & function);
  void
  WaitForQueuedWork() noexcept;

  std::vector<int>           m_Devices;
  std::vector<double>        m_Weights;
  bool                       m_AllDevices{ false };
  size_t                     m_ChunkBytes{ size_t{ 64 } << 20 };
  std::vector<Piece>         m_LastPieces;
  std::unique_ptr<Resources> m_Resources;
};
} // namespace itk

#endif
