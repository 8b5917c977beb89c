// Package models holds the emulator's built-in workloads, ResNet-50, GNMT
// and DLRM, as architectures, and turns them into tables of work per layer
// at any batch (docs/workloads.md): the CSV files workload/builtin/*.csv
// (written by `go run ./workload/builtin/gen`) at each model's own batch,
// and the same rows at another batch for `--batch N`.
//
// The architectures are written below as code tables, taken from their
// public reference implementations (torchvision's ResNet-50 v1.5, the MLPerf
// GNMT v2 reference grown to the 8 + 8 layers of Wu et al. 2016, and the
// MLPerf DLRM Criteo Terabyte configuration). Every column of every row is
// computed from those shapes by the rules of docs/workloads.md; nothing is
// fitted to the ACE paper's results. The output is deterministic, so the
// checked-in CSVs can be compared with a fresh run (models_test.go does).
package models

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// bytesPerValue is the size of one activation, weight or gradient value:
// FP16, as in the ACE paper (Section V: "We use the FP16 precision for
// activation/gradient computation and communication").
const bytesPerValue = 2

// Layer kinds, the CSV's kind column.
const (
	kindConv        = "conv"        // 2-D convolution with its batch norm (and ReLU) fused
	kindFC          = "fc"          // fully connected (Linear) layer
	kindLSTM        = "lstm"        // one LSTM layer over the whole sequence (cuDNN)
	kindAttention   = "attention"   // normalised Bahdanau attention (GNMT v2)
	kindEmbedding   = "embedding"   // embedding-table lookup
	kindInteraction = "interaction" // DLRM pairwise dot-product interaction
)

// Collective types, the CSV's comm column.
const (
	commNone      = "none"
	commAllReduce = "allreduce"
	commAllToAll  = "alltoall"
)

// layer is one row of an architecture table, described per sample (per
// image, per sentence pair, per click-log record). The rules that turn it
// into a CSV row live in row.
type layer struct {
	name string
	kind string
	// in and out are the activation values the forward pass reads and
	// writes per sample (for an embedding: not used, see lookups).
	in, out int64
	// macs is the forward multiply-accumulates per sample; weightMACs is
	// the part of them that multiplies a parameter, which is what the
	// weight gradient must redo (equal to macs for conv, fc and LSTM).
	macs, weightMACs int64
	// params is the layer's trainable parameters (whole model, not per NPU).
	params int64
	// weights is the part of params in the layer's kernel or weight
	// matrix, without batch-norm parameters or biases: what a file that
	// leaves those out (ASTRA-sim 1.0's ResNet-50) all-reduces.
	weights int64
	// noInGrad marks a layer whose input is training data (pixels, dense
	// features, token or category indices): no input gradient is computed.
	noInGrad bool

	// Embedding layers only.
	lookups   int64 // rows gathered per sample
	dim       int64 // values per row
	denseGrad bool  // the gradient is a dense tensor of params values (GNMT), not a sparse local update (DLRM)

	// comm is the layer's own collective: commAllReduce of its weight
	// gradient for a data-parallel layer with parameters, commAllToAll for
	// a model-parallel embedding, commNone otherwise; commBytes its size
	// per NPU.
	comm      string
	commBytes int64
	// commPerSample marks a collective whose size is commBytes per sample
	// (DLRM's all-to-all: each sample's looked-up embeddings), not per
	// iteration.
	commPerSample bool
}

// model is one workload: its architecture table and the header facts.
type model struct {
	file        string // output file name
	name        string
	parallelism string // ASTRA-sim 1.0 parallelism keyword: DATA, HYBRID_DLRM
	batch       int64  // samples per NPU per iteration
	notes       []string
	extra       [][2]string // further "# key: value" header lines
	layers      []layer
}

// row is one CSV row: the columns after name and kind.
type row struct {
	name, kind               string
	fwdFLOPs, fwdBytes       int64
	inGradFLOPs, inGradBytes int64
	wtGradFLOPs, wtGradBytes int64
	params                   int64
	comm                     string
	commBytes                int64
}

// header is the CSV's column row.
var header = []string{
	"name", "kind",
	"fwd_flops", "fwd_bytes",
	"ingrad_flops", "ingrad_bytes",
	"wtgrad_flops", "wtgrad_bytes",
	"params", "comm", "comm_bytes",
}

// row applies docs/workloads.md's rules to one layer of a model with batch
// samples per NPU.
func (l layer) row(batch int64) row {
	r := row{name: l.name, kind: l.kind, params: l.params, comm: l.comm, commBytes: l.commBytes}
	if l.commPerSample {
		r.commBytes = batch * l.commBytes
	}
	if l.kind == kindEmbedding {
		// A gather: L = batch × lookups rows of dim values are read and
		// written to the output. No multiply-accumulates.
		vals := batch * l.lookups * l.dim
		r.fwdBytes = 2 * vals * bytesPerValue
		// The indices get no gradient.
		if l.denseGrad {
			// Scatter-add of the output gradient into a dense gradient:
			// read the gradient, read-modify-write the rows (one add per
			// value); the layer owning the weight also zeroes the dense
			// gradient (params values).
			r.wtGradFLOPs = vals
			r.wtGradBytes = 3*vals*bytesPerValue + l.params*bytesPerValue
		} else {
			// Sparse SGD update of the looked-up rows, in place:
			// w -= lr·g, one multiply-accumulate per value; read the
			// gradient, read and write the row.
			r.wtGradFLOPs = 2 * vals
			r.wtGradBytes = 3 * vals * bytesPerValue
		}
		return r
	}
	// Dense layers: FLOPs = 2 × MACs × batch; bytes = (activations in +
	// out) × batch + weights, all FP16.
	flops := 2 * l.macs * batch
	bytes := (batch*(l.in+l.out) + l.params) * bytesPerValue
	r.fwdFLOPs, r.fwdBytes = flops, bytes
	if !l.noInGrad {
		// Input gradient: the transposed products, as many MACs as the
		// forward pass; reads the output gradient and the weights, writes
		// the input gradient: the same bytes.
		r.inGradFLOPs, r.inGradBytes = flops, bytes
	}
	if l.weightMACs > 0 || l.params > 0 {
		// Weight gradient: redoes the weighted products with the input
		// activations and the output gradient; reads both, writes the
		// weight gradient: the same bytes as the forward pass.
		r.wtGradFLOPs = 2 * l.weightMACs * batch
		r.wtGradBytes = bytes
	}
	return r
}

// conv appends a convolution (batch norm fused) of a k×k kernel with the
// given stride and padding k/2 to *ls and returns its output height and
// width. Its parameters are the kernel (no bias: torchvision's ResNet
// convolutions have bias=False) plus the batch norm's γ and β.
func conv(ls *[]layer, name string, h, w, cin, cout, k, stride int64, first bool) (int64, int64) {
	pad := k / 2
	ho := (h+2*pad-k)/stride + 1
	wo := (w+2*pad-k)/stride + 1
	macs := ho * wo * cout * k * k * cin
	params := k*k*cin*cout + 2*cout
	*ls = append(*ls, dataParallel(layer{
		name: name, kind: kindConv,
		in: h * w * cin, out: ho * wo * cout,
		macs: macs, weightMACs: macs,
		params: params, weights: k * k * cin * cout, noInGrad: first,
	}))
	return ho, wo
}

// fc returns a fully connected layer in → out with bias, for rows samples'
// worth of vectors per sample (1 for an image, T tokens for a sentence).
func fc(name string, in, out, rows int64, first bool) layer {
	macs := rows * in * out
	return dataParallel(layer{
		name: name, kind: kindFC,
		in: rows * in, out: rows * out,
		macs: macs, weightMACs: macs,
		params: in*out + out, weights: in * out, noInGrad: first,
	})
}

// lstmParams is the parameter count of a PyTorch nn.LSTM layer (one
// direction) of input size i and hidden size h: the input and recurrent
// weights of the four gates and their two bias vectors b_ih and b_hh.
func lstmParams(i, h int64) int64 { return 4*h*(i+h) + 2*4*h }

// lstm returns one LSTM layer of input size i and hidden size h run over t
// time steps, in dirs directions (2: bidirectional, outputs concatenated).
// Per step and sample the four gates cost 4h(i+h) MACs.
func lstm(name string, i, h, t, dirs int64) layer {
	macs := dirs * t * 4 * h * (i + h)
	return dataParallel(layer{
		name: name, kind: kindLSTM,
		in: t * i, out: t * dirs * h,
		macs: macs, weightMACs: macs,
		params: dirs * lstmParams(i, h),
	})
}

// dataParallel attaches the weight-gradient all-reduce (params × 2 B) to a
// data-parallel layer that has parameters.
func dataParallel(l layer) layer {
	if l.params > 0 {
		l.comm = commAllReduce
		l.commBytes = l.params * bytesPerValue
	} else {
		l.comm = commNone
	}
	return l
}

// ResNet-50 v1.5 as in torchvision (torchvision/models/resnet.py, resnet50:
// Bottleneck blocks [3, 4, 6, 3], stride on the 3×3 convolution), input
// 224×224×3, batch 32 per NPU (ACE paper, Section V).
const (
	resnetBatch = 32
	resnetImage = 224
	resnetClass = 1000
)

// resnetStages are ResNet-50's four stages: bottleneck width, blocks, stride.
var resnetStages = []struct{ width, blocks, stride int64 }{
	{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2},
}

// resnetExpansion is the bottleneck's output/width ratio.
const resnetExpansion = 4

func resnet50() model {
	var ls []layer
	h, w := conv(&ls, "conv1", resnetImage, resnetImage, 3, 64, 7, 2, true) // 112×112×64
	// maxpool 3×3, stride 2, padding 1: 112 → 56 (no parameters, not a row).
	h, w = (h+2-3)/2+1, (w+2-3)/2+1
	cin := int64(64)
	for si, s := range resnetStages {
		for b := int64(0); b < s.blocks; b++ {
			stride := int64(1)
			if b == 0 {
				stride = s.stride
			}
			p := fmt.Sprintf("layer%d.%d.", si+1, b)
			cout := s.width * resnetExpansion
			// Bottleneck (v1.5): 1×1 reduce, 3×3 with the stride, 1×1 expand.
			h1, w1 := conv(&ls, p+"conv1", h, w, cin, s.width, 1, 1, false)
			h2, w2 := conv(&ls, p+"conv2", h1, w1, s.width, s.width, 3, stride, false)
			h3, w3 := conv(&ls, p+"conv3", h2, w2, s.width, cout, 1, 1, false)
			if stride != 1 || cin != cout {
				// Projection shortcut: 1×1 conv with the stride, then BN.
				conv(&ls, p+"downsample.0", h, w, cin, cout, 1, stride, false)
			}
			h, w, cin = h3, w3, cout
		}
	}
	// Global average pool 7×7×2048 → 2048 (no parameters, not a row).
	ls = append(ls, fc("fc", cin, resnetClass, 1, false))
	return model{
		file: "resnet50.csv", name: "resnet50", parallelism: "DATA", batch: resnetBatch,
		notes: []string{
			"source: torchvision ResNet-50 v1.5 (https://github.com/pytorch/vision/blob/main/torchvision/models/resnet.py),",
			"source: He et al. 2016 (http://arxiv.org/abs/1512.03385); ACE paper (Rashidi et al., ISCA 2021) Section V",
			"input 224x224x3; batch 32 per NPU; FP16; 53 convolutions (batch norm fused, its gamma and beta counted) + fc",
			"maxpool, average pool, ReLU and residual additions are fused or omitted (docs/workloads.md)",
		},
		layers: ls,
	}
}

// GNMT: the MLPerf GNMT v2 reference (mlcommons/training rnn_translator,
// seq2seq/models/{gnmt,encoder,decoder,attention}.py) with the 8 encoder
// and 8 decoder LSTM layers of Wu et al. 2016, batch 128 per NPU (ACE
// paper, Section V; also the reference's --train-batch-size default).
const (
	gnmtBatch  = 128
	gnmtHidden = 1024
	gnmtLayers = 8
	// gnmtVocab is the shared BPE vocabulary (~32,000 tokens in the MLPerf
	// reference), padded to a multiple of 8 for FP16 [choice].
	gnmtVocab = 32320
	// gnmtSrcLen and gnmtTgtLen are the source and target sentence lengths
	// in tokens: every sentence at the reference's --max-length-train
	// default of 50 [choice].
	gnmtSrcLen = 50
	gnmtTgtLen = 50
)

func gnmt() model {
	const h, v, ts, tt = gnmtHidden, gnmtVocab, gnmtSrcLen, gnmtTgtLen
	var ls []layer
	// Shared embedding (share_embedding=True): the encoder's row owns the
	// V×H weight and its all-reduce; the decoder's lookup row has none.
	ls = append(ls, dataParallel(layer{
		name: "encoder.embedder", kind: kindEmbedding,
		lookups: ts, dim: h, denseGrad: true,
		params: v * h, noInGrad: true,
	}))
	// Encoder: bidirectional first layer, then (2H → H), then H → H.
	ls = append(ls, lstm("encoder.rnn_layers.0", h, h, ts, 2))
	ls = append(ls, lstm("encoder.rnn_layers.1", 2*h, h, ts, 1))
	for i := 2; i < gnmtLayers; i++ {
		ls = append(ls, lstm(fmt.Sprintf("encoder.rnn_layers.%d", i), h, h, ts, 1))
	}
	ls = append(ls, dataParallel(layer{
		name: "decoder.embedder", kind: kindEmbedding,
		lookups: tt, dim: h, denseGrad: true,
		params: 0, noInGrad: true,
	}))
	// Decoder layer 0 with its attention (RecurrentAttention).
	ls = append(ls, lstm("decoder.att_rnn.rnn", h, h, tt, 1))
	// Normalised Bahdanau attention, query from decoder layer 0 (tt × H),
	// keys and values the encoder output (ts × H). MACs per sample:
	// linear_q tt·H², linear_k ts·H², score linear_att·tanh(q+k+b) tt·ts·H,
	// context bmm(scores, values) tt·ts·H. Parameters: linear_q and
	// linear_k (no bias), linear_att, normalize_bias (H each), normalize_scalar.
	ls = append(ls, dataParallel(layer{
		name: "decoder.att_rnn.attn", kind: kindAttention,
		in: tt*h + ts*h, out: tt * h,
		macs:       (tt+ts)*h*h + 2*tt*ts*h,
		weightMACs: (tt+ts)*h*h + tt*ts*h,
		params:     2*h*h + h + h + 1,
	}))
	// Decoder layers 1..7: input is the previous output concatenated with
	// the attention context (2H).
	for i := 0; i < gnmtLayers-1; i++ {
		ls = append(ls, lstm(fmt.Sprintf("decoder.rnn_layers.%d", i), 2*h, h, tt, 1))
	}
	ls = append(ls, fc("decoder.classifier", h, v, tt, false))
	return model{
		file: "gnmt.csv", name: "gnmt", parallelism: "DATA", batch: gnmtBatch,
		notes: []string{
			"source: Wu et al. 2016, GNMT (http://arxiv.org/abs/1609.08144): 8 encoder + 8 decoder LSTM layers, hidden 1024;",
			"source: MLPerf GNMT v2 reference (https://github.com/mlcommons/training/tree/master/rnn_translator/pytorch):",
			"layer shapes, gnmt_v2 normalised Bahdanau attention, shared embedding, 32k BPE vocabulary (padded to 32320),",
			"sequence length 50 source and 50 target tokens (--max-length-train), batch 128 per NPU (ACE paper Section V); FP16",
		},
		extra:  [][2]string{{"seq_len", strconv.Itoa(gnmtSrcLen)}, {"vocab", strconv.Itoa(gnmtVocab)}},
		layers: ls,
	}
}

// DLRM: the MLPerf DLRM Criteo Terabyte configuration of the open-source
// reference (facebookresearch/dlrm, bench/run_and_time.sh and
// dlrm_s_pytorch.py with --max-ind-range=40000000): 26 tables of dimension
// 128, bottom MLP 13-512-256-128, top MLP 479-1024-1024-512-256-1, dot
// interaction without self-interaction. The ACE paper (Section V) uses the
// DLRM of its reference [47] with batch 512 per NPU but gives no table or
// MLP sizes, so this configuration is our [choice].
const (
	dlrmBatch = 512
	dlrmDim   = 128
)

// dlrmTables are the Criteo Terabyte table sizes (rows) with
// --max-ind-range=40000000, as listed in dlrm_s_pytorch.py.
var dlrmTables = []int64{
	39884406, 39043, 17289, 7420, 20263, 3, 7120, 1543, 63, 38532951,
	2953546, 403346, 10, 2208, 11938, 155, 4, 976, 14, 39979771,
	25641295, 39664984, 585935, 12972, 108, 36,
}

// dlrmBottom and dlrmTop are the MLP widths (--arch-mlp-bot, and the top
// MLP with its computed input width first).
var (
	dlrmBottom = []int64{13, 512, 256, 128}
	dlrmTop    = []int64{479, 1024, 1024, 512, 256, 1}
)

func dlrm() model {
	nt := int64(len(dlrmTables))
	var rows int64
	for _, n := range dlrmTables {
		rows += n
	}
	var ls []layer
	// Model-parallel tables: each NPU holds a share of the tables and looks
	// them up for the global batch; on average (weak scaling, tables
	// sharded evenly) that is batch × tables lookups per NPU. The forward
	// all-to-all delivers to each NPU its batch × tables × dim values, and
	// the backward all-to-all returns their gradients: batch × tables ×
	// dim × 2 B per NPU each way.
	ls = append(ls, layer{
		name: "emb", kind: kindEmbedding,
		lookups: nt, dim: dlrmDim,
		params: rows * dlrmDim, noInGrad: true,
		comm: commAllToAll, commBytes: nt * dlrmDim * bytesPerValue, commPerSample: true,
	})
	for i := 0; i+1 < len(dlrmBottom); i++ {
		ls = append(ls, fc(fmt.Sprintf("bot_mlp.%d", i), dlrmBottom[i], dlrmBottom[i+1], 1, i == 0))
	}
	lastBottom := len(ls) - 1 // row index of the last bottom-MLP layer
	// Interaction: the bottom MLP output and the 26 embeddings, 27 vectors
	// of 128, multiplied pairwise by one batched matmul Z = X·Xᵀ (27·27·128
	// MACs per sample); the 27·26/2 = 351 strictly lower-triangle dot
	// products are concatenated with the 128 dense values: 479 outputs.
	nv := nt + 1
	if dlrmBottom[len(dlrmBottom)-1] != dlrmDim {
		panic("gen: DLRM bottom MLP output must equal the embedding dimension")
	}
	topIn := dlrmDim + nv*(nv-1)/2
	if topIn != dlrmTop[0] {
		panic(fmt.Sprintf("gen: DLRM interaction gives %d values, top MLP takes %d", topIn, dlrmTop[0]))
	}
	ls = append(ls, dataParallel(layer{
		name: "interaction", kind: kindInteraction,
		in: nv * dlrmDim, out: topIn,
		macs: nv * nv * dlrmDim,
	}))
	for i := 0; i+1 < len(dlrmTop); i++ {
		ls = append(ls, fc(fmt.Sprintf("top_mlp.%d", i), dlrmTop[i], dlrmTop[i+1], 1, false))
	}
	return model{
		file: "dlrm.csv", name: "dlrm", parallelism: "HYBRID_DLRM", batch: dlrmBatch,
		notes: []string{
			"source: MLPerf DLRM Criteo Terabyte config of the open-source reference (https://github.com/facebookresearch/dlrm,",
			"bench/run_and_time.sh, dlrm_s_pytorch.py, --max-ind-range=40000000): 26 tables x 128, bottom 13-512-256-128,",
			"top 479-1024-1024-512-256-1, dot interaction; Naumov et al. 2019 (http://arxiv.org/abs/1906.00091).",
			"The ACE paper (Section V) gives batch 512 per NPU but no table sizes; this config is our choice. FP16.",
			"emb is model-parallel (its all-to-all runs in the forward pass and again, for the gradients, in back-prop);",
			"the MLPs are data-parallel (weight-gradient all-reduce)",
		},
		extra: [][2]string{
			// Row index of the last bottom-MLP layer, as in ASTRA-sim's
			// "HYBRID_DLRM 4" header: the forward pass waits for the
			// all-to-all before the next row (the interaction).
			{"last_bottom_mlp", strconv.Itoa(lastBottom)},
			{"tables", strconv.FormatInt(nt, 10)},
			{"embedding_dim", strconv.Itoa(dlrmDim)},
		},
		layers: ls,
	}
}

// models returns the built-in workloads in a fixed order.
func models() []model { return []model{resnet50(), gnmt(), dlrm()} }

// rows returns m's CSV rows.
func (m model) rows() []row {
	rs := make([]row, len(m.layers))
	for i, l := range m.layers {
		rs[i] = l.row(m.batch)
	}
	return rs
}

// write writes m as CSV to w: "# " comment lines, the header, the rows.
func (m model) write(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# workload: %s\n", m.name)
	for _, n := range m.notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	fmt.Fprintf(&b, "# parallelism: %s\n", m.parallelism)
	fmt.Fprintf(&b, "# batch: %d\n", m.batch)
	fmt.Fprintf(&b, "# bytes_per_value: %d\n", bytesPerValue)
	for _, kv := range m.extra {
		fmt.Fprintf(&b, "# %s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&b, "# rules: docs/workloads.md; generated by `go run ./workload/builtin/gen -out workload/builtin`: do not edit\n")
	cw := csv.NewWriter(&b)
	if err := cw.Write(header); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range m.rows() {
		rec := []string{
			r.name, r.kind,
			i64(r.fwdFLOPs), i64(r.fwdBytes),
			i64(r.inGradFLOPs), i64(r.inGradBytes),
			i64(r.wtGradFLOPs), i64(r.wtGradBytes),
			i64(r.params), r.comm, i64(r.commBytes),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// totals sums a model's rows.
type totals struct {
	layers                             int
	params, fwdFLOPs, allReduceBytes   int64
	allToAllBytes, dataParallelParams  int64
	fwdBytes, inGradFLOPs, wtGradFLOPs int64
}

func (m model) totals() totals {
	t := totals{layers: len(m.layers)}
	for _, r := range m.rows() {
		t.params += r.params
		t.fwdFLOPs += r.fwdFLOPs
		t.fwdBytes += r.fwdBytes
		t.inGradFLOPs += r.inGradFLOPs
		t.wtGradFLOPs += r.wtGradFLOPs
		switch r.comm {
		case commAllReduce:
			t.allReduceBytes += r.commBytes
			t.dataParallelParams += r.params
		case commAllToAll:
			t.allToAllBytes += r.commBytes
		}
	}
	return t
}

// Names returns the built-in models' names in the paper's order (Section
// V): "resnet50", "gnmt", "dlrm".
func Names() []string {
	var ns []string
	for _, m := range models() {
		ns = append(ns, m.name)
	}
	return ns
}

// MaxBatch bounds a batch: 2^20 samples per NPU keeps every FLOP and byte
// count of the three models well inside int64 (GNMT, the largest per
// sample, does 21.1 GFLOP per sentence pair forward).
const MaxBatch = 1 << 20

// get returns the model called name at batch samples per NPU (0: its own
// batch, the paper's).
func get(name string, batch int64) (model, error) {
	if batch < 0 || batch > MaxBatch {
		return model{}, fmt.Errorf("batch %d: use 1 to %d samples per NPU", batch, MaxBatch)
	}
	for _, m := range models() {
		if m.name == name {
			if batch > 0 {
				m.batch = batch
			}
			return m, nil
		}
	}
	return model{}, fmt.Errorf("no built-in model %q; known: %v", name, Names())
}

// Batch returns the batch per NPU model name's table is written at: the
// paper's (Section V: 32, 128 and 512).
func Batch(name string) (int64, error) {
	m, err := get(name, 0)
	return m.batch, err
}

// File returns the name of model name's table in workload/builtin.
func File(name string) (string, error) {
	m, err := get(name, 0)
	return m.file, err
}

// WriteCSV writes model name's table at batch samples per NPU (0: its own
// batch) to w, in the format of docs/workloads.md.
func WriteCSV(w io.Writer, name string, batch int64) error {
	m, err := get(name, batch)
	if err != nil {
		return err
	}
	return m.write(w)
}

// Work is a pass's FLOPs and memory bytes.
type Work struct {
	FLOPs, Bytes int64
}

// Shape is one layer of a model at a batch: its work per pass by the rules
// of docs/workloads.md, its parameters and its collective.
type Shape struct {
	Name, Kind          string
	Fwd, InGrad, WtGrad Work
	// Params is the layer's parameters; Weights the part of them in its
	// kernel or weight matrix (no batch norm, no bias).
	Params, Weights int64
	// Comm is "none", "allreduce" or "alltoall"; CommBytes its size per
	// NPU.
	Comm      string
	CommBytes int64
}

// Layers returns model name's layers at batch samples per NPU (0: its own
// batch), in forward order.
func Layers(name string, batch int64) ([]Shape, error) {
	m, err := get(name, batch)
	if err != nil {
		return nil, err
	}
	ss := make([]Shape, len(m.layers))
	for i, r := range m.rows() {
		ss[i] = Shape{
			Name: r.name, Kind: r.kind,
			Fwd: Work{r.fwdFLOPs, r.fwdBytes}, InGrad: Work{r.inGradFLOPs, r.inGradBytes}, WtGrad: Work{r.wtGradFLOPs, r.wtGradBytes},
			Params: r.params, Weights: m.layers[i].weights, Comm: r.comm, CommBytes: r.commBytes,
		}
	}
	return ss, nil
}
