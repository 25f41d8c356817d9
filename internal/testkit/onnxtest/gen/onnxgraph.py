"""onnxgraph: the few lines the model generators of voxkit's tests
(engine/pocket/testdata/gen/pocket.py, engine/supertonic/testdata/gen/
supertonic.py) write their graphs with: onnx.helper nodes and
initializers, opset 17, IR version 8 (what Debian's python3-onnx 1.12 and
ONNX Runtime both take)."""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    def __init__(self, producer):
        self.nodes, self.inits, self.n = [], [], 0
        self.producer = producer

    def const(self, value, dtype=np.float32):
        """An initializer of value; returns its name."""
        self.n += 1
        name = f"w{self.n}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, op, *inputs, **attrs):
        """A node of op on inputs; returns its output's name."""
        self.n += 1
        out = f"t{self.n}"
        self.nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def out(self, op, inputs, name, **attrs):
        """A node of op whose output is the graph's output name."""
        self.nodes.append(helper.make_node(op, inputs, [name], **attrs))

    def params(self):
        """The number of weights of the initializers."""
        return sum(int(np.prod(t.dims)) for t in self.inits)

    def save(self, path, inputs, outputs):
        """Checks the model and writes it to path; returns params()."""
        g = helper.make_graph(self.nodes, os.path.basename(path), inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name=self.producer)
        m.ir_version = 8
        onnx.checker.check_model(m)
        onnx.save(m, path)
        return self.params()


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def i64(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.INT64, shape)
