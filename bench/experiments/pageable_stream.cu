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
// Build and run (not part of the CMake build):
//   nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/pageable_stream pageable_stream.cu -lpthread && /tmp/pageable_stream
// Can a pageable (not pinned) host image stream through the device faster
// than it goes up whole and comes down whole (issue 14)? Each chunk is copied
// by host threads from the pageable input into a pinned slot, uploaded,
// squared, downloaded into the same slot and copied by host threads into the
// pageable output, while the device works on the other slots. The host copies
// 2 bytes per image byte, so the bound is the host's parallel memcpy rate:
// this measures that rate first (pageable -> pinned, 1 to 15 threads), then
// the pipeline over chunk sizes, slots and threads, against the whole-copy
// path (pinned whole copies, and the driver's pageable cudaMemcpy).
#include <cuda_runtime.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(err_)); exit(1);} } while (0)

// A persistent pool: Run(f) calls f(i, n) on n threads (the caller is one) and returns when all did.
class Pool {
public:
  explicit Pool(unsigned n) : m_N(n) { for (unsigned i = 1; i < n; ++i) m_Threads.emplace_back([this, i] { Work(i); }); }
  ~Pool() { { std::lock_guard<std::mutex> l(m_M); m_Stop = true; ++m_Gen; } m_Cv.notify_all(); for (auto& t : m_Threads) t.join(); }
  void Run(const std::function<void(unsigned, unsigned)>& f) {
    { std::lock_guard<std::mutex> l(m_M); m_F = &f; m_Left = m_N - 1; ++m_Gen; } m_Cv.notify_all();
    f(0, m_N);
    std::unique_lock<std::mutex> l(m_M); m_Done.wait(l, [&] { return m_Left == 0; }); }
  unsigned Size() const { return m_N; }
private:
  void Work(unsigned i) { unsigned long seen = 0; for (;;) { const std::function<void(unsigned, unsigned)>* f;
      { std::unique_lock<std::mutex> l(m_M); m_Cv.wait(l, [&] { return m_Gen != seen; }); seen = m_Gen; if (m_Stop) return; f = m_F; }
      (*f)(i, m_N); { std::lock_guard<std::mutex> l(m_M); if (--m_Left == 0) m_Done.notify_one(); } } }
  unsigned m_N; std::vector<std::thread> m_Threads; std::mutex m_M; std::condition_variable m_Cv, m_Done;
  const std::function<void(unsigned, unsigned)>* m_F = nullptr; unsigned m_Left = 0; unsigned long m_Gen = 0; bool m_Stop = false;
};

void ParallelCopy(Pool& pool, char* dst, const char* src, size_t bytes) {
  pool.Run([&](unsigned i, unsigned n) { const size_t part = (bytes / n + 4095) / 4096 * 4096, b = std::min(bytes, i * part), e = std::min(bytes, b + part); if (e > b) memcpy(dst + b, src + b, e - b); }); }

__global__ void SquareInPlace(size_t n4, float4* p) { const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) { float4 v = p[i]; v.x *= v.x; v.y *= v.y; v.z *= v.z; v.w *= v.w; p[i] = v; } }

double Ms(std::chrono::steady_clock::time_point a) { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count(); }
template <typename F> double MedianMs(F f, int runs = 7) { std::vector<double> s; f(); for (int r = 0; r < runs; ++r) { auto t = std::chrono::steady_clock::now(); f(); s.push_back(Ms(t)); } std::sort(s.begin(), s.end()); return s[s.size() / 2]; }

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? size_t(atoi(argv[1])) : 512, count = n * n * n, bytes = count * sizeof(float);
  std::vector<float> in(count), out(count, -1.0f);
  for (size_t i = 0; i < count; ++i) in[i] = 0.5f + float((i * 2654435761u) >> 12 & 1023) / 1024.0f;
  float* dev; CK(cudaMalloc(&dev, bytes));
  char* pinnedIn; char* pinnedOut; CK(cudaMallocHost(&pinnedIn, bytes)); CK(cudaMallocHost(&pinnedOut, bytes));
  memcpy(pinnedIn, in.data(), bytes);
  const unsigned hw = std::thread::hardware_concurrency();
  printf("%zu^3 float (%zu MiB), %u hardware threads\n", n, bytes >> 20, hw);
  auto check = [&](const char* name, const float* result) { size_t bad = 0; for (size_t i = 0; i < count; ++i) bad += result[i] != in[i] * in[i]; if (bad) printf("  %s: %zu WRONG\n", name, bad); };

  // Host memcpy rate, pageable -> pinned, 32 MiB pieces over the whole image.
  for (unsigned t : {1u, 2u, 4u, 8u, 12u, 15u, 16u}) { if (t > hw) continue; Pool pool(t);
    const double ms = MedianMs([&] { for (size_t o = 0; o < bytes; o += 32 << 20) ParallelCopy(pool, pinnedIn + o, reinterpret_cast<const char*>(in.data()) + o, std::min<size_t>(32 << 20, bytes - o)); }, 5);
    const double back = MedianMs([&] { for (size_t o = 0; o < bytes; o += 32 << 20) ParallelCopy(pool, reinterpret_cast<char*>(out.data()) + o, pinnedIn + o, std::min<size_t>(32 << 20, bytes - o)); }, 5);
    printf("host memcpy, %2u threads: pageable->pinned %.2f ms = %.1f GB/s; pinned->pageable %.2f ms = %.1f GB/s\n", t, ms, bytes / ms / 1e6, back, bytes / back / 1e6); }

  const unsigned blocks = unsigned((count / 4 + 255) / 256);
  // Whole copies: pinned, and the driver's pageable cudaMemcpy.
  const double pinnedWhole = MedianMs([&] { CK(cudaMemcpy(dev, pinnedIn, bytes, cudaMemcpyHostToDevice)); SquareInPlace<<<blocks, 256>>>(count / 4, reinterpret_cast<float4*>(dev)); CK(cudaMemcpy(pinnedOut, dev, bytes, cudaMemcpyDeviceToHost)); });
  check("pinned whole", reinterpret_cast<const float*>(pinnedOut));
  const double pageableWhole = MedianMs([&] { CK(cudaMemcpy(dev, in.data(), bytes, cudaMemcpyHostToDevice)); SquareInPlace<<<blocks, 256>>>(count / 4, reinterpret_cast<float4*>(dev)); CK(cudaMemcpy(out.data(), dev, bytes, cudaMemcpyDeviceToHost)); }, 3);
  check("pageable whole", out.data());
  printf("whole copies + kernel: pinned %.2f ms, pageable cudaMemcpy %.2f ms\n", pinnedWhole, pageableWhole);

  // Streamed through pinned slots.
  std::vector<cudaStream_t> streams(8); std::vector<cudaEvent_t> landed(8);
  for (int s = 0; s < 8; ++s) { CK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking)); CK(cudaEventCreateWithFlags(&landed[s], cudaEventDisableTiming)); }
  const char* src = reinterpret_cast<const char*>(in.data()); char* dst = reinterpret_cast<char*>(out.data());
  printf("%-34s %9s %9s\n", "streamed pageable (chunk, slots, threads)", "ms", "GB/s each way");
  double best = 1e30; char bestName[64] = "";
  for (size_t chunkMiB : {4, 8, 16, 32}) for (unsigned slots : {2u, 3u, 4u, 6u}) for (unsigned threads : {4u, 8u, 15u}) {
    if (threads > hw) continue; Pool pool(threads); const size_t chunk = chunkMiB << 20, chunks = (bytes + chunk - 1) / chunk;
    char* slot; CK(cudaMallocHost(&slot, chunk * slots));
    auto run = [&] {
      std::fill(out.begin(), out.end(), -1.0f);
      auto t = std::chrono::steady_clock::now();
      for (size_t k = 0; k < chunks + slots; ++k) {
        const unsigned s = unsigned(k % slots); char* buffer = slot + s * chunk;
        if (k >= slots) { const size_t d = k - slots, off = d * chunk; CK(cudaEventSynchronize(landed[s])); ParallelCopy(pool, dst + off, buffer, std::min(chunk, bytes - off)); }
        if (k < chunks) { const size_t off = k * chunk, len = std::min(chunk, bytes - off);
          ParallelCopy(pool, buffer, src + off, len);
          CK(cudaMemcpyAsync(reinterpret_cast<char*>(dev) + off, buffer, len, cudaMemcpyHostToDevice, streams[s]));
          SquareInPlace<<<unsigned((len / 16 + 255) / 256), 256, 0, streams[s]>>>(len / 16, reinterpret_cast<float4*>(reinterpret_cast<char*>(dev) + off));
          CK(cudaGetLastError());
          CK(cudaMemcpyAsync(buffer, reinterpret_cast<char*>(dev) + off, len, cudaMemcpyDeviceToHost, streams[s]));
          CK(cudaEventRecord(landed[s], streams[s])); } }
      return Ms(t); };
    run(); std::vector<double> s; for (int r = 0; r < 5; ++r) s.push_back(run()); std::sort(s.begin(), s.end());
    check("streamed", out.data());
    char name[64]; snprintf(name, 64, "%zu MiB, %u slots, %u threads", chunkMiB, slots, threads);
    printf("%-34s %9.2f %9.1f\n", name, s[2], bytes / s[2] / 1e6);
    if (s[2] < best) { best = s[2]; snprintf(bestName, 64, "%s", name); }
    CK(cudaFreeHost(slot)); }
  printf("best streamed pageable: %s, %.2f ms (pinned whole %.2f, pageable cudaMemcpy whole %.2f)\n", bestName, best, pinnedWhole, pageableWhole);
  return 0; }
