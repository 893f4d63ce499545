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

// Runs one of RTK's CUDA test programs only where a CUDA device is usable:
//   rtkCudaTestLauncher PROGRAM [ARGUMENTS...]
// Without one it exits with 77, which CTest reports as skipped. RTK's CUDA
// filters would otherwise run their CPU parents there and pass without
// testing anything; and the programs link the CUDA driver, which a machine
// without one cannot even load.

#include "itkCudaUtil.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <unistd.h>

int
main(int argc, char * argv[])
{
  if (argc < 2)
  {
    std::cerr << "usage: " << argv[0] << " PROGRAM [ARGUMENTS...]\n";
    return 2;
  }
  if (!itk::IsCudaAvailable())
  {
    std::cout << "Skipped: no CUDA device (" << itk::CudaUnavailableReason() << ")\n";
    return 77;
  }
  execv(argv[1], argv + 1);
  std::cerr << "cannot run " << argv[1] << ": " << std::strerror(errno) << '\n';
  return 1;
}
