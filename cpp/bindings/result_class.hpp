#pragma once
/// \file result_class.hpp
/// A C++ result struct bound as a Python class with read-only fields, each field named ONCE
/// (here, by the binding that registers it): the class gets `_fields` (the names in order, as
/// a namedtuple has), `_field_types` (name to "int", "float", "bool" or "float | None"),
/// `_field_docs` (name to the field's docstring, the only place a field is described: the Python
/// layer writes its classes' Attributes sections from it) and `__match_args__`, a keyword (or
/// positional) constructor taking every field and a copy constructor — all from that one list.
/// Every such class derives from one bound base,
/// `_core.result.Result` (register_result_base, called once by module.cpp before any result class),
/// which defines ONCE, from the instance's `_fields`, what the classes share: value equality
/// and hashing, a `__repr__`, `_asdict()` and pickling (`__reduce__`: the class and the fields
/// in order, rebuilt by the positional constructor). The Python layer derives its result
/// classes from these (adding only its display and any derived properties), never listing the
/// fields again. Besides numbers, a field may hold a string or a list (object_field), a read-only
/// float64 NumPy array (array_field) or a tuple of other results (results_field); such a class's
/// constructor takes builtins.object, and a class with a field compared through a key (lists,
/// arrays) defines its own `__eq__`/`__hash__` over the keys.

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common.hpp"

namespace ropelab::bind {

#if defined(__GNUC__)
#define ROPELAB_RESULT_HIDDEN __attribute__((visibility("hidden")))
#else
#define ROPELAB_RESULT_HIDDEN
#endif

/// The value of one field given to a result class's constructor (a number, a bool, or None for
/// an optional field); checked by the field's own conversion.
class ROPELAB_RESULT_HIDDEN FieldValue : public py::object {
 public:
  PYBIND11_OBJECT_DEFAULT(FieldValue, py::object, ::ropelab::bind::accept_any_object)
};

/// Any object (the right-hand side of ==): named builtins.object so that the stubs do not say Any.
class ROPELAB_RESULT_HIDDEN AnyObject : public py::object {
 public:
  PYBIND11_OBJECT_DEFAULT(AnyObject, py::object, ::ropelab::bind::accept_any_object)
};

/// The C++ side of `_core.result.Result`: never instantiated (the base has no constructor); its
/// methods take `self` as a Python object and read the fields through `_fields`.
struct ROPELAB_RESULT_HIDDEN ResultBase {};

#undef ROPELAB_RESULT_HIDDEN

namespace result_detail {

/// The fields of a result, in the order of its class's `_fields`.
inline py::tuple state(const py::object& self) {
  const py::tuple names = self.attr("_fields");
  py::tuple s(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) s[i] = self.attr(names[i]);
  return s;
}

}  // namespace result_detail

/// Binds `Result` in `m` (the submodule `_core.result`), the base of every ResultClass; call once,
/// before the first ResultClass is declared.
inline void register_result_base(py::module_& m) {
  using result_detail::state;
  py::class_<ResultBase> cls(m, "Result",
                             "Base of the result classes bound from the core: value equality, "
                             "hashing, repr, _asdict and pickling from the class's _fields.");
  cls.attr("_fields") = py::tuple();  // a result class sets its own (register_result_base: none)
  cls.attr("_field_types") = py::dict();
  cls.attr("_field_docs") = py::dict();
  cls.def(
         "__eq__",
         [](const py::object& self, const AnyObject& other) -> bool {
           if (!py::type::of(self).is(py::type::of(other))) return false;
           return state(self).equal(state(other));
         },
         "other"_a,
         "Same type and every field equal (NaN is unequal to itself, as in a dataclass).")
      .def(
          "__hash__", [](const py::object& self) -> py::ssize_t { return py::hash(state(self)); },
          "Hash of the fields.")
      .def(
          "__repr__",
          [](const py::object& self) -> std::string {
            const py::tuple names = self.attr("_fields");
            std::string out = py::type::of(self).attr("__name__").cast<std::string>() + "(";
            for (std::size_t i = 0; i < names.size(); ++i) {
              if (i > 0) out += ", ";
              out +=
                  names[i].cast<std::string>() + "=" + std::string(py::repr(self.attr(names[i])));
            }
            return out + ")";
          },
          "The fields, by name.")
      .def(
          "_asdict",
          [](const py::object& self) -> py::dict {
            const py::tuple names = self.attr("_fields");
            py::dict d;
            for (const py::handle n : names) d[n] = self.attr(n);
            return d;
          },
          "The fields by name, in order (as a namedtuple's _asdict).")
      .def(
          "__reduce__",
          [](const py::object& self) -> py::tuple {
            return py::make_tuple(py::type::of(self), state(self));
          },
          "Pickling: the class and the fields in order (rebuilt by the positional constructor).");
}

template <class T>
class ResultClass {
 public:
  ResultClass(py::module_& m, const char* name, const char* doc)
      : cls_(m, name, doc, base()), name_(name), fields_(std::make_shared<std::vector<Field>>()) {}

  /// A field read as the member itself (int, float or bool).
  template <class V>
  ResultClass& field(const char* name, V T::*member, const char* doc) {
    cls_.def_readonly(name, member, doc);
    const std::string type_name = name_;
    const char* type = std::is_same_v<V, bool> ? "bool" : std::is_integral_v<V> ? "int" : "float";
    fields_->push_back({name, type, doc, false, [member, name, type_name](T& t, py::handle v) {
                          t.*member = load<V>(v, type_name, name);
                        }});
    return *this;
  }

  /// A float field that reads None where `present(t)` is false (stored as NaN; None or omitted
  /// in the constructor).
  ResultClass& optional_field(const char* name, double T::*member, bool (*present)(const T&),
                              const char* doc) {
    cls_.def_property_readonly(
        name,
        [member, present](const T& t) -> std::optional<double> {
          if (present(t)) return t.*member;
          return std::nullopt;
        },
        doc);
    const std::string type_name = name_;
    fields_->push_back(
        {name, "float | None", doc, true, [member, name, type_name](T& t, py::handle v) {
           t.*member = v.is_none() ? std::numeric_limits<double>::quiet_NaN()
                                   : load<double>(v, type_name, name);
         }});
    return *this;
  }

  /// A field of another type V (a str, a list of str, a list of bound results): read through
  /// V's conversion, given to the constructor as exactly that type; `type` names it in
  /// `_field_types` (e.g. "str", "list[str]"). Compared and hashed as a tuple when a list.
  template <class V>
  ResultClass& object_field(const char* name, V T::*member, const char* type, const char* doc) {
    cls_.def_readonly(name, member, doc);
    const std::string type_name = name_, type_str = type;
    fields_->push_back({name, type, doc, false,
                        [member, name, type_name, type_str](T& t, py::handle v) {
                          py::detail::make_caster<V> c;
                          if (!c.load(v, false)) {
                            throw py::type_error(type_name + ": " + name + " must be " + type_str +
                                                 ", got " + py::repr(v).cast<std::string>());
                          }
                          t.*member = py::detail::cast_op<V>(c);
                        },
                        [](py::handle v) -> py::object {
                          if (py::isinstance<py::list>(v))
                            return py::tuple(py::reinterpret_borrow<py::object>(v));
                          return py::reinterpret_borrow<py::object>(v);
                        }});
    non_numeric_ = true;
    return *this;
  }

  /// A float64 NumPy array field with `ndim` dimensions (C-contiguous, read-only: the
  /// constructor copies what it is given; the copy constructor shares it); `type` names it in
  /// `_field_types` with its shape, e.g. "ndarray[float64, (A, W)]". Equal when same shape and
  /// elementwise equal (NaN unequal, as for a float field).
  ResultClass& array_field(const char* name, darray T::*member, int ndim, const char* type,
                           const char* doc) {
    cls_.def_readonly(name, member, doc);
    const std::string type_name = name_, type_str = type;
    fields_->push_back(
        {name, type, doc, false,
         [member, name, ndim, type_name, type_str](T& t, py::handle v) {
           const py::module_ np = py::module_::import("numpy");
           py::object a;
           try {
             a = np.attr("asarray")(v);
           } catch (py::error_already_set& e) {
             if (e.matches(PyExc_MemoryError)) throw;
           }
           const std::string kind =
               a ? a.attr("dtype").attr("kind").cast<std::string>() : std::string();
           if (kind.size() != 1 || std::string("iuf").find(kind[0]) == std::string::npos) {
             throw py::type_error(type_name + ": " + name + " must be " + type_str +
                                  " (real numbers), got " + py::repr(v).cast<std::string>());
           }
           if (a.attr("ndim").cast<int>() != ndim) {
             throw py::value_error(type_name + ": " + name + " must have " + std::to_string(ndim) +
                                   " dimension(s) (" + type_str + "), got shape " +
                                   py::repr(a.attr("shape")).cast<std::string>());
           }
           darray copy =
               darray::ensure(np.attr("array")(a, "dtype"_a = "float64", "order"_a = "C"));
           copy.attr("setflags")("write"_a = false);
           t.*member = copy;
         },
         [](py::handle v) -> py::object {
           return py::make_tuple(v.attr("shape"), py::tuple(v.attr("ravel")().attr("tolist")()));
         }});
    non_numeric_ = true;
    return *this;
  }

  /// A tuple of results of the bound class E (or classes derived from it), kept as given (so a
  /// derived class's instances stay what they are); TupleT is a py::tuple wrapper whose stub
  /// name is `type` (e.g. "tuple[FiguresOfMerit, ...]").
  template <class E, class TupleT>
  ResultClass& results_field(const char* name, TupleT T::*member, const char* type,
                             const char* doc) {
    cls_.def_readonly(name, member, doc);
    const std::string type_name = name_, type_str = type;
    fields_->push_back(
        {name, type, doc, false, [member, name, type_name, type_str](T& t, py::handle v) {
           bool ok = py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v);
           if (ok) {
             for (py::handle e : v) ok = ok && py::isinstance<E>(e);
           }
           if (!ok) {
             throw py::type_error(type_name + ": " + name + " must be " + type_str + ", got " +
                                  py::repr(v).cast<std::string>());
           }
           t.*member = py::reinterpret_steal<TupleT>(PySequence_Tuple(v.ptr()));
         }});
    non_numeric_ = true;
    return *this;
  }

  /// A check of the whole result (e.g. that array shapes agree), run by the constructor after
  /// the fields are read; it throws ValueError naming the fields.
  ResultClass& check(void (*fn)(const T&)) {
    *check_ = fn;
    return *this;
  }

  /// Adds everything derived from the field list; call once, after the last field.
  py::class_<T>& finish() {
    auto fields = fields_;
    py::list names;
    py::dict types, docs;
    for (const Field& f : *fields) {
      names.append(f.name);
      types[py::str(f.name)] = f.type;
      docs[py::str(f.name)] = f.doc;
    }
    cls_.attr("_fields") = py::tuple(names);
    cls_.attr("_field_types") = types;
    cls_.attr("_field_docs") = docs;
    cls_.attr("__match_args__") = py::tuple(names);
    cls_.def(py::init<const T&>(), "other"_a, "A copy of another result of this type.");
    if (non_numeric_) {
      def_constructor<AnyObject>("Every field by name (or all in order).");
    } else {
      def_constructor<FieldValue>(
          "Every field by name (or all in order); an optional field may be omitted (None).");
    }
    bool keyed = false;
    for (const Field& f : *fields) keyed = keyed || static_cast<bool>(f.key);
    if (keyed) {  // the base compares the values themselves; arrays and lists need their keys
      cls_.def(
          "__eq__",
          [fields](const py::object& self, const AnyObject& other) -> bool {
            if (!py::type::of(self).is(py::type::of(other))) return false;
            return keys(*fields, self).equal(keys(*fields, other));
          },
          "other"_a,
          "Same type and every field equal (arrays elementwise; NaN is unequal to itself).");
      cls_.def(
          "__hash__",
          [fields](const py::object& self) -> py::ssize_t { return py::hash(keys(*fields, self)); },
          "Hash of the fields (arrays and lists through their keys).");
    }
    return cls_;
  }

 private:
  /// The constructor from every field by name (or all in order), each given as an Arg (the stub
  /// type of its parameters), followed by the class's check.
  template <class Arg>
  void def_constructor(const char* doc) {
    auto fields = fields_;
    auto check = check_;
    const std::string type_name = name_;
    cls_.def(py::init([fields, type_name, check](const py::Args<Arg>& args,
                                                 const py::KWArgs<Arg>& kwargs) {
               T t = build(*fields, type_name, args, kwargs);
               if (*check) (*check)(t);
               return t;
             }),
             doc);
  }

  struct Field {
    std::string name;
    std::string type;  ///< "int", "float", "bool", "float | None" or the name given
    std::string doc;   ///< the field's docstring (that of its property)
    bool optional;
    std::function<void(T&, py::handle)> set;
    /// What __eq__ and __hash__ compare instead of the value (none: the value itself).
    std::function<py::object(py::handle)> key = nullptr;
  };

  /// What is compared and hashed: each field's key, or its value.
  static py::tuple keys(const std::vector<Field>& fields, const py::object& self) {
    py::tuple s(fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
      py::object v = self.attr(fields[i].name.c_str());
      s[i] = fields[i].key ? fields[i].key(v) : v;
    }
    return s;
  }

  /// The value of a field, or TypeError naming the class, the field and the value.
  template <class V>
  static V load(py::handle v, const std::string& type_name, const std::string& field) {
    py::detail::make_caster<V> c;
    // a bool field takes only a bool (True/False, numpy.bool_); a number field no bool
    const bool is_bool =
        PyBool_Check(v.ptr()) || std::string(Py_TYPE(v.ptr())->tp_name).rfind("numpy.bool", 0) == 0;
    const bool ok = (std::is_same_v<V, bool> == is_bool) && c.load(v, true);
    if (!ok) {
      throw py::type_error(type_name + ": " + field + " must be " +
                           (std::is_same_v<V, bool> ? "a bool"
                            : std::is_integral_v<V> ? "an integer >= 0"
                                                    : "a real number") +
                           ", got " + py::repr(v).cast<std::string>());
    }
    return py::detail::cast_op<V>(c);
  }

  /// `_core.result.Result`, the base of every result class (registered by register_result_base).
  static py::handle base() {
    py::handle b = py::detail::get_type_handle(typeid(ResultBase), false);
    if (!b) {
      throw std::logic_error(
          "ResultClass: register_result_base must be called before any result class");
    }
    return b;
  }

  static T build(const std::vector<Field>& fields, const std::string& type_name,
                 const py::tuple& args, const py::dict& kwargs) {
    if (args.size() > fields.size()) {
      throw py::type_error(type_name + ": takes at most " + std::to_string(fields.size()) +
                           " fields, got " + std::to_string(args.size()));
    }
    T t{};
    std::size_t used = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      const bool positional = i < args.size();
      const bool named = kwargs.contains(f.name);
      if (positional && named) {
        throw py::type_error(type_name + ": got " + f.name + " both by position and by name");
      }
      if (named) ++used;
      if (positional) {
        f.set(t, args[i]);
      } else if (named) {
        f.set(t, kwargs[f.name.c_str()]);
      } else if (f.optional) {
        f.set(t, py::none());
      } else {
        throw py::type_error(type_name + ": missing field " + f.name);
      }
    }
    if (used != kwargs.size()) {
      for (const auto& kv : kwargs) {
        const std::string k = py::str(kv.first).cast<std::string>();
        bool known = false;
        for (const Field& f : fields) known = known || f.name == k;
        if (!known) throw py::type_error(type_name + ": unknown field " + k);
      }
    }
    return t;
  }

  py::class_<T> cls_;
  std::string name_;
  std::shared_ptr<std::vector<Field>> fields_;
  bool non_numeric_ = false;  ///< a field that is not a number: the constructor takes objects
  std::shared_ptr<void (*)(const T&)> check_ = std::make_shared<void (*)(const T&)>(nullptr);
};

}  // namespace ropelab::bind

namespace pybind11::detail {
ROPELAB_ARGUMENT_TYPE_NAME(AnyObject, "builtins.object")
ROPELAB_ARGUMENT_TYPE_NAME(FieldValue, "typing.SupportsFloat | None")
}  // namespace pybind11::detail
