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
#ifndef itkCudaSlabSplitter_h
#define itkCudaSlabSplitter_h

#include "itkCudaDeviceSplitter.h"

#include <functional>
#include <ostream>
#include <vector>

namespace itk
{
/** \class CudaSlabSplitter
 * \brief Shares a neighborhood operation on an image between devices: each
 * device computes a slab of the output's planes (the slowest axis) from the
 * input's planes of that slab and a halo on both sides.
 *
 * The input and output buffers live on the home device. A slab of the home
 * device is computed where the data lies, from the input's planes in place.
 * A slab of another device (or a second slab of the home device) is computed
 * from a copy of its input planes with their halo (a peer copy: NVLink or
 * PCIe, see CudaEnablePeerAccess()) into scratch on that device, and its
 * output planes are copied back; the copies are whole planes, so each is one
 * contiguous transfer. Every slab's operation sees an input whose planes end
 * at the halo: a plane of its output within `halo` planes of the input's
 * ends exists only where those ends are the whole input's, so boundary
 * conditions apply where the whole image's would. An operation whose
 * boundary wraps around (periodic along the slowest axis) must not be cut:
 * the filters run it as one slab.
 *
 * Run() only queues the work: the home stream is ordered after every slab's
 * and the host does not wait; scratch is allocated and freed in the order of
 * the slab's stream (a stream of the device's pool). On a failing CUDA call
 * Run() waits for what it queued and throws itk::ExceptionObject naming the
 * error. Not thread-safe: one Run() at a time per object.
 * \ingroup CudaCommon
 */
class CudaCommon_EXPORT CudaSlabSplitter
{
public:
  /** Output planes [First, First + Count) computed by Device. */
  using Slab = CudaDeviceSplitter::Piece;

  /** The buffers' planes: a plane is all the pixels of one index along the
   * slowest axis (one row of a 2-D image, one pixel of a 1-D one). */
  struct Geometry
  {
    size_t InputPlaneBytes{ 0 };
    size_t InputPlanes{ 0 };
    size_t OutputPlaneBytes{ 0 };
    size_t OutputPlanes{ 0 };
    /** The input plane that output plane 0 is at. */
    size_t OutputOffset{ 0 };
    /** The planes the operation reads on each side of an output plane. */
    size_t Halo{ 0 };
    /** False where the operation's boundary wraps around the slowest axis
     * (periodic): then the home device computes the whole output. */
    bool MayCut{ true };
  };

  /** Computes output planes [outputFirst, outputFirst + outputCount) into
   * `out` (their first plane) from input planes [inputFirst, inputFirst +
   * inputCount) in `in` (their first plane), both memory of `device`, queued
   * on `stream` (a stream of `device`, the current device during the call). */
  using SlabFunction = std::function<void(const void * in,
                                          size_t       inputFirst,
                                          size_t       inputCount,
                                          void *       out,
                                          size_t       outputFirst,
                                          size_t       outputCount,
                                          int          device,
                                          cudaStream_t stream)>;

  /** The slabs, one per entry of `devices`, sized in proportion to the
   * weights (equal when empty; a zero weight takes no slab). A device may
   * be named more than once: it computes several slabs, one after another.
   * Empty (the default): the home device computes the whole output.
   * \throws itk::ExceptionObject for a negative device, weights not matching
   * the devices, a negative or non-finite weight, or weights all zero.
   * Indices beyond the device count are reported by Run(). */
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

  /** One slab per visible device, equal, the home device's first; resolved
   * at each Run(), so one GPU simply does it all. SetDevices() switches this
   * off. */
  void
  SetAllDevices();
  bool
  GetAllDevices() const
  {
    return m_AllDevices;
  }

  /** Whether Run() may cut the work (devices set or all devices). */
  bool
  IsSplitting() const
  {
    return m_AllDevices || !m_Devices.empty();
  }

  /** How Run() cuts `planes` output planes: in the devices' order, one slab
   * per entry with a nonzero share and at least one plane, boundaries at the
   * rounded cumulative shares. Empty `devices`: one slab for device -1 (the
   * home device). */
  static std::vector<Slab>
  Partition(size_t planes, const std::vector<int> & devices, const std::vector<double> & weights = {});

  /** Queue `function` over the slabs of `geometry`'s output, from `in` to
   * `out` (memory of `homeDevice`, distinct buffers), ordered after the work
   * queued on `homeStream` and before the work queued there later. The
   * calling thread's current device is restored.
   * \throws itk::ExceptionObject for a device index beyond the device count,
   * an output plane outside the input's, or naming the CUDA error of a
   * failing call. */
  void
  Run(const void *         in,
      void *               out,
      const Geometry &     geometry,
      int                  homeDevice,
      cudaStream_t         homeStream,
      const SlabFunction & function);

  /** The slabs of the last Run() (empty before the first, one slab when the
   * work was not cut). */
  const std::vector<Slab> &
  GetLastSlabs() const
  {
    return m_LastSlabs;
  }

  void
  Print(std::ostream & os) const;

private:
  std::vector<int>    m_Devices;
  std::vector<double> m_Weights;
  bool                m_AllDevices{ false };
  std::vector<Slab>   m_LastSlabs;
};

namespace CudaDetail
{
/** SetSplitDevices() of the filters that own a CudaSlabSplitter: `filter`
 * is modified when the choice changes. \throws as SetDevices(). */
CudaCommon_EXPORT void
SetSlabDevices(CudaSlabSplitter &          splitter,
               const std::vector<int> &    devices,
               const std::vector<double> & weights,
               Object *                    filter);

/** SetSplitAcrossAllDevices() of those filters. */
CudaCommon_EXPORT void
SetSlabAllDevices(CudaSlabSplitter & splitter, bool all, Object * filter);
} // namespace CudaDetail
} // namespace itk

/** The split's settings of a filter that holds a CudaSlabSplitter named
 * `splitter`: SetSplitDevices(devices, weights = {}) (a slab for each entry,
 * sized in proportion to the weights, equal when empty; a device named twice
 * computes two slabs; empty, the default: the output's device alone;
 * \throws as CudaSlabSplitter::SetDevices()), GetSplitDevices(),
 * GetSplitWeights(), SetSplitAcrossAllDevices() (a slab for every visible
 * device, resolved at each update; SetSplitDevices() replaces this choice),
 * GetSplitAcrossAllDevices(), SplitAcrossAllDevicesOn()/Off(), and
 * GetSlabSplitter() (the slabs of the last update). Each setter modifies the
 * filter when the choice changes. */
#define itkCudaSlabSplitSettingsMacro(splitter)                                                                       \
  void SetSplitDevices(const std::vector<int> & devices, const std::vector<double> & weights = {})                    \
  {                                                                                                                    \
    ::itk::CudaDetail::SetSlabDevices(splitter, devices, weights, this);                                               \
  }                                                                                                                    \
  const std::vector<int> & GetSplitDevices() const { return splitter.GetDevices(); }                                   \
  const std::vector<double> & GetSplitWeights() const { return splitter.GetWeights(); }                                \
  void SetSplitAcrossAllDevices(bool all) { ::itk::CudaDetail::SetSlabAllDevices(splitter, all, this); }               \
  bool GetSplitAcrossAllDevices() const { return splitter.GetAllDevices(); }                                           \
  itkBooleanMacro(SplitAcrossAllDevices);                                                                              \
  const ::itk::CudaSlabSplitter & GetSlabSplitter() const { return splitter; }                                         \
  static_assert(true, "")

#endif
