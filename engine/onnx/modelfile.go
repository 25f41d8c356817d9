package onnx

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/protowire"

	ort "github.com/yalue/onnxruntime_go"
)

// modelInfo is what the catalog reads of an ONNX model file without
// creating an ONNX Runtime session: the graph's inputs and outputs and the
// model's metadata. Reading it checks the file's framing too, so a
// truncated or foreign file is refused at a rescan, not at first use.
type modelInfo struct {
	inputs, outputs []tensorInfo
	metadata        map[string]string
}

// tensorInfo is a graph input or output: its name and, for a tensor, its
// element type (ONNX's enum, which ort.TensorElementDataType follows).
type tensorInfo struct {
	name string
	elem ort.TensorElementDataType
}

// input returns the input called name.
func (mi *modelInfo) input(name string) (tensorInfo, bool) {
	for _, t := range mi.inputs {
		if t.name == name {
			return t, true
		}
	}
	return tensorInfo{}, false
}

// Field numbers of onnx.proto that readModelInfo reads.
const (
	modelGraph       = 7  // ModelProto.graph
	modelMetadata    = 14 // ModelProto.metadata_props
	graphInput       = 11 // GraphProto.input
	graphOutput      = 12 // GraphProto.output
	valueName        = 1  // ValueInfoProto.name, StringStringEntryProto.key
	valueType        = 2  // ValueInfoProto.type, StringStringEntryProto.value
	typeTensor       = 1  // TypeProto.tensor_type
	tensorElemType   = 1  // TypeProto.Tensor.elem_type
	maxSmallProtoLen = 1 << 20
)

// errNotONNX is wrapped by readModelInfo's errors for a file that is not a
// whole ONNX model.
var errNotONNX = errors.New("not an ONNX model (or a truncated one)")

// readModelInfo reads the inputs, outputs and metadata of the ONNX model
// at path, skipping over its weights.
func readModelInfo(path string) (*modelInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := &protoReader{f: f, br: bufio.NewReaderSize(f, 64<<10)}
	mi := &modelInfo{metadata: map[string]string{}}
	graphs := 0
	err = r.fields(st.Size(), func(num protowire.Number, n int64) error {
		switch num {
		case modelGraph:
			graphs++
			return r.fields(r.pos+n, func(num protowire.Number, n int64) error {
				if num != graphInput && num != graphOutput {
					return r.skip(n)
				}
				b, err := r.small(n)
				if err != nil {
					return err
				}
				t, err := parseValueInfo(b)
				if num == graphInput {
					mi.inputs = append(mi.inputs, t)
				} else {
					mi.outputs = append(mi.outputs, t)
				}
				return err
			})
		case modelMetadata:
			b, err := r.small(n)
			if err != nil {
				return err
			}
			k, v, err := parseEntry(b)
			mi.metadata[k] = v
			return err
		}
		return r.skip(n)
	})
	if err == nil && graphs != 1 {
		err = fmt.Errorf("%w: %d graphs", errNotONNX, graphs)
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return mi, nil
}

// protoReader walks the protobuf fields of a file without holding it in
// memory: the length-delimited fields it does not need are skipped.
type protoReader struct {
	f   *os.File
	br  *bufio.Reader
	pos int64
}

// fields calls field for each length-delimited field up to end (its
// number and length, the reader at its first byte), which must consume
// exactly that length; other fields are skipped here.
func (r *protoReader) fields(end int64, field func(num protowire.Number, n int64) error) error {
	for r.pos < end {
		tag, err := r.varint()
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(tag)
		if num <= 0 {
			return fmt.Errorf("%w: bad field number at byte %d", errNotONNX, r.pos)
		}
		switch typ {
		case protowire.VarintType:
			_, err = r.varint()
		case protowire.Fixed32Type:
			err = r.skip(4)
		case protowire.Fixed64Type:
			err = r.skip(8)
		case protowire.BytesType:
			var n uint64
			if n, err = r.varint(); err != nil {
				return err
			}
			if n > uint64(end-r.pos) {
				return fmt.Errorf("%w: field %d of %d bytes at byte %d passes the end", errNotONNX, num, n, r.pos)
			}
			stop := r.pos + int64(n)
			if err = field(num, int64(n)); err == nil && r.pos != stop {
				err = fmt.Errorf("%w: field %d at byte %d", errNotONNX, num, stop-int64(n))
			}
		default:
			return fmt.Errorf("%w: wire type %d at byte %d", errNotONNX, typ, r.pos)
		}
		if err != nil {
			return err
		}
	}
	if r.pos != end {
		return fmt.Errorf("%w: a field passes byte %d", errNotONNX, end)
	}
	return nil
}

func (r *protoReader) varint() (uint64, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errNotONNX, noEOF(err))
	}
	return v, nil
}

// ReadByte reads one byte, counted in pos (for binary.ReadUvarint).
func (r *protoReader) ReadByte() (byte, error) {
	c, err := r.br.ReadByte()
	if err == nil {
		r.pos++
	}
	return c, err
}

func (r *protoReader) skip(n int64) error {
	if n <= int64(r.br.Buffered()) {
		r.br.Discard(int(n))
	} else {
		if _, err := r.f.Seek(r.pos+n, io.SeekStart); err != nil {
			return err
		}
		r.br.Reset(r.f)
	}
	r.pos += n
	return nil
}

// small reads a field of at most maxSmallProtoLen bytes.
func (r *protoReader) small(n int64) ([]byte, error) {
	if n > maxSmallProtoLen {
		return nil, fmt.Errorf("%w: a %d-byte input, output or metadata entry", errNotONNX, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotONNX, noEOF(err))
	}
	r.pos += n
	return b, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseValueInfo reads a ValueInfoProto's name and tensor element type.
func parseValueInfo(b []byte) (tensorInfo, error) {
	var t tensorInfo
	err := eachField(b, func(num protowire.Number, v []byte) error {
		switch num {
		case valueName:
			t.name = string(v)
		case valueType:
			return eachField(v, func(num protowire.Number, v []byte) error {
				if num != typeTensor {
					return nil
				}
				elem, ok := varintField(v, tensorElemType)
				if !ok {
					return fmt.Errorf("%w: a tensor type without its element type", errNotONNX)
				}
				t.elem = ort.TensorElementDataType(elem)
				return nil
			})
		}
		return nil
	})
	return t, err
}

// parseEntry reads a StringStringEntryProto.
func parseEntry(b []byte) (key, value string, err error) {
	err = eachField(b, func(num protowire.Number, v []byte) error {
		switch num {
		case valueName:
			key = string(v)
		case valueType:
			value = string(v)
		}
		return nil
	})
	return key, value, err
}

// eachField calls f with each length-delimited field of the message b.
func eachField(b []byte, f func(num protowire.Number, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %w", errNotONNX, protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return fmt.Errorf("%w: %w", errNotONNX, protowire.ParseError(m))
			}
			if err := f(num, v); err != nil {
				return err
			}
			n = m
		} else if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return fmt.Errorf("%w: %w", errNotONNX, protowire.ParseError(n))
		}
		b = b[n:]
	}
	return nil
}

// varintField returns the varint field num of the message b.
func varintField(b []byte, num protowire.Number) (uint64, bool) {
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return 0, false
		}
		b = b[m:]
		if n == num && typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b)
			return v, m >= 0
		}
		if m = protowire.ConsumeFieldValue(n, typ, b); m < 0 {
			return 0, false
		}
		b = b[m:]
	}
	return 0, false
}

func (t tensorInfo) String() string {
	if t.elem == 0 {
		return fmt.Sprintf("%q", t.name)
	}
	return fmt.Sprintf("%q (%s)", t.name, t.elem)
}
