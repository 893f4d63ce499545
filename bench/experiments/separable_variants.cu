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
// Build and run (not part of the CMake build; from the repository's root):
//   bench/experiments/separable_variants.sh        # builds /tmp/separable_variants
//   /tmp/separable_variants                         # on the GPU machine
// The separable pass (src/itkCudaSeparableConvolution.cu) against the form
// that ran in stop 42 (commit b45eb7f's file), in variants of its outputs per
// thread: first every variant's output against the old kernel's, to the bit
// (5 buffer shapes x taps 1, 3, 11, 31, 255 x Neumann, constant, periodic x
// each axis), then the time of each pass over a 512^3 float image for 5, 11
// and 25 taps, next to a device-to-device copy of the image (CUDA events,
// medians of 15). With an argument: the comparison only (for compute-sanitizer).
#include "itkCudaSeparableConvolution.hcu"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <cstdlib>
namespace itk {
#define DECL(name) template <typename T> void name(T *, const T *, const CudaConvolutionAxis &, const double *, unsigned int, CudaBoundary, double, cudaStream_t);
DECL(ConvOld) DECL(ConvA) DECL(ConvB) DECL(ConvC)
}
using Fn = void (*)(float *, const float *, const itk::CudaConvolutionAxis &, const double *, unsigned, itk::CudaBoundary, double, cudaStream_t);
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorName(e), __LINE__); return 1; } } while (0)
int main(int argc, char **) {
  Fn fns[4] = { itk::ConvOld<float>, itk::ConvA<float>, itk::ConvB<float>, itk::ConvC<float> };
  const char * names[4] = { "old(stop42)", "A cols8 rows4", "B cols16 rows8", "C cols8 rows8" };
  // Correctness: odd sizes, every axis, taps, boundaries (not Crop: old lacks it).
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int bad = 0;
  size_t dims[][3] = { { 37, 19, 23 }, { 1, 300, 5 }, { 2049, 3, 2 }, { 5, 7, 600 }, { 130, 129, 3 } };
  for (auto & d : dims) {
    size_t n = d[0] * d[1] * d[2];
    std::vector<float> h(n); for (auto & v : h) v = dist(rng);
    float *in, *o[4]; CK(cudaMalloc(&in, n * 4)); for (auto & p : o) CK(cudaMalloc(&p, n * 4));
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    for (unsigned taps : { 1u, 3u, 11u, 31u, 255u })
      for (int b = 0; b < 3; ++b)
        for (int axis = 0; axis < 3; ++axis) {
          std::vector<double> w(taps); for (auto & x : w) x = dist(rng);
          itk::CudaConvolutionAxis a{ 1, d[axis], 1 };
          for (int k = 0; k < 3; ++k) { if (k < axis) a.Inner *= d[k]; if (k > axis) a.Outer *= d[k]; }
          std::vector<float> r[4];
          for (int f = 0; f < 4; ++f) {
            CK(cudaMemset(o[f], 0xff, n * 4));
            fns[f](o[f], in, a, w.data(), taps, (itk::CudaBoundary)b, 0.25, 0);
            CK(cudaDeviceSynchronize());
            r[f].resize(n); CK(cudaMemcpy(r[f].data(), o[f], n * 4, cudaMemcpyDeviceToHost));
          }
          for (int f = 1; f < 4; ++f) {
            double m = 0; for (size_t i = 0; i < n; ++i) m = std::max(m, (double)std::fabs(r[f][i] - r[0][i]));
            if (!(m == 0.0)) { ++bad; if (bad < 20) printf("DIFF %s size %zux%zux%zu taps %u boundary %d axis %d: max %g\n", names[f], d[0], d[1], d[2], taps, b, axis, m); }
          }
        }
    cudaFree(in); for (auto & p : o) cudaFree(p);
  }
  printf("correctness: %d variant cases differ from stop 42's kernel\n", bad);
  if (argc > 1) return bad != 0;
  // Timing: 512^3 float, 11 taps, each axis.
  const size_t N = 512; const size_t n = N * N * N;
  float *in, *out; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMemset(in, 0, n * 4));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto timeIt = [&](auto && f) { std::vector<float> t; for (int i = 0; i < 15; ++i) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms); } std::sort(t.begin(), t.end()); return t[7]; };
  float copy = timeIt([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
  printf("D2D copy 512^3 float: %.3f ms (%.0f GB/s)\n", copy, 2.0 * n * 4 / copy / 1e6);
  for (unsigned taps : { 5u, 11u, 25u }) {
    std::vector<double> w(taps, 1.0 / taps);
    for (int f = 0; f < 4; ++f) {
      float sum = 0; printf("%-12s taps %2u:", names[f], taps);
      for (int axis = 0; axis < 3; ++axis) {
        itk::CudaConvolutionAxis a{ axis == 0 ? 1 : (axis == 1 ? N : N * N), N, axis == 0 ? N * N : (axis == 1 ? N : 1) };
        float ms = timeIt([&] { fns[f](out, in, a, w.data(), taps, itk::CudaBoundary::ZeroFluxNeumann, 0, 0); });
        sum += ms; printf("  axis %d %.3f ms (%.2fx copy)", axis, ms, ms / copy);
      }
      printf("  | 3 passes %.3f ms = %.2fx the 3-copy floor\n", sum, sum / (3 * copy));
    }
  }
  CK(cudaGetLastError());
  return 0;
}
namespace itk {
void CudaCheckError(cudaError e, const char * f, int l, const char * m) { if (e != cudaSuccess) { printf("FAIL %s %s:%d %s\n", cudaGetErrorName(e), f, l, m ? m : ""); std::exit(2); } }
void CudaCheckKernelLaunch(const char * k, const char * f, int l) { CudaCheckError(cudaGetLastError(), f, l, k); }
}
