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
#include "itkCudaEnvironment.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace itk
{
namespace CudaDetail
{
const char *
EnvironmentText(const char * name)
{
  return std::getenv(name);
}

std::string
EnvironmentWord(const char * name)
{
  const char * text = EnvironmentText(name);
  std::string  word = text != nullptr ? text : "";
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  return word;
}

bool
EnvironmentSwitch(const char * name, bool fallback)
{
  const std::string word = EnvironmentWord(name);
  if (word == "0" || word == "false" || word == "off" || word == "no")
  {
    return false;
  }
  if (word == "1" || word == "true" || word == "on" || word == "yes")
  {
    return true;
  }
  return fallback;
}

namespace
{
/** The leading digits of `text` as a number, `*end` after them; false for none. */
bool
LeadingNumber(const char * text, uint64_t * value, const char ** end)
{
  if (text == nullptr || !std::isdigit(static_cast<unsigned char>(*text)))
  {
    return false;
  }
  char * stop = nullptr;
  *value = std::strtoull(text, &stop, 10);
  *end = stop;
  return true;
}
} // namespace

bool
EnvironmentNumber(const char * name, uint64_t * value)
{
  uint64_t     number = 0;
  const char * end = nullptr;
  if (!LeadingNumber(EnvironmentText(name), &number, &end) || *end != '\0')
  {
    return false;
  }
  *value = number;
  return true;
}

uint64_t
EnvironmentBytes(const char * name, uint64_t fallback)
{
  uint64_t     value = 0;
  const char * end = nullptr;
  if (!LeadingNumber(EnvironmentText(name), &value, &end))
  {
    return fallback;
  }
  unsigned int shift = 0;
  switch (std::toupper(static_cast<unsigned char>(*end)))
  {
    case '\0':
      return value;
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      return fallback;
  }
  const char * rest = end + 1;
  rest += std::toupper(static_cast<unsigned char>(*rest)) == 'I' ? 1 : 0;
  rest += std::toupper(static_cast<unsigned char>(*rest)) == 'B' ? 1 : 0;
  return *rest == '\0' ? value << shift : fallback;
}
} // namespace CudaDetail
} // namespace itk
