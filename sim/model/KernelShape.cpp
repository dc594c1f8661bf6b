#include "sim/model/KernelShape.hpp"

namespace gpuscale::model {
namespace {

/// Softmax FLOP per score: row max, subtract, exp, row sum, divide (the generator's count).
constexpr double kSoftmaxFlopPerScore = 5.0;

template <class... Visitor>
struct Overloaded : Visitor... {
  using Visitor::operator()...;
};
template <class... Visitor>
Overloaded(Visitor...) -> Overloaded<Visitor...>;

} // namespace

double AttentionShape::pairs() const
{
  const double queries = static_cast<double>(q);
  return causal ? queries * (queries + 1.0) / 2.0 : queries * static_cast<double>(kv);
}

double Kernel::forward_flop() const
{
  return std::visit(
      Overloaded{
          [](const GemmShape& g) { return 2.0 * double(g.m) * double(g.n) * double(g.k) * double(g.batch); },
          [](const ConvShape& c) {
            return 2.0 * double(c.out_h()) * double(c.out_w()) * double(c.k) * double(c.c / c.groups) * double(c.r) *
                   double(c.s);
          },
          [](const AttentionShape& a) {
            return double(a.heads) * a.pairs() * (4.0 * double(a.head_dim) + kSoftmaxFlopPerScore);
          },
          [](const ElementwiseShape& e) { return double(e.elements) * e.flop_per_element; },
      },
      shape);
}

std::string Kernel::op_name() const
{
  return std::visit(Overloaded{
                        [](const GemmShape&) { return std::string("gemm"); },
                        [](const ConvShape&) { return std::string("conv"); },
                        [](const AttentionShape&) { return std::string("attention"); },
                        [](const ElementwiseShape&) { return std::string("elementwise"); },
                    },
                    shape);
}

} // namespace gpuscale::model
