// Demo host code: C++ with std:: templates, the kind of code whose exports and line info trueline-check audits.
#include <numeric>
#include <string>
#include <vector>

namespace demo {
double mean(const std::vector<double> &v)
{
    return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

std::string describe(const std::vector<double> &v)
{
    return "n=" + std::to_string(v.size()) + " mean=" + std::to_string(mean(v));
}
} // namespace demo

extern "C" double demo_mean(const double *p, int n)
{
    return demo::mean(std::vector<double>(p, p + n));
}
