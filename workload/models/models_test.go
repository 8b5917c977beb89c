package models

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// byName returns the row called name, failing the test if there is none.
func byName(t *testing.T, m model, name string) row {
	t.Helper()
	for _, r := range m.rows() {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("%s: no layer %q", m.name, name)
	return row{}
}

func eq(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %d, want %d", what, got, want)
	}
}

func TestResNet50(t *testing.T) {
	m := resnet50()
	tot := m.totals()
	eq(t, "layers", int64(tot.layers), 54)
	convs := 0
	for _, l := range m.layers {
		if l.kind == kindConv {
			convs++
		}
	}
	eq(t, "convolutions", int64(convs), 53)
	if last := m.layers[len(m.layers)-1]; last.kind != kindFC || last.name != "fc" {
		t.Errorf("last layer %s (%s), want fc", last.name, last.kind)
	}

	// torchvision's resnet50 has 25,557,032 parameters: convolutions,
	// batch-norm γ and β, fc weight and bias.
	eq(t, "params", tot.params, 25_557_032)
	// Every parameter's FP16 gradient is all-reduced.
	eq(t, "all-reduce bytes", tot.allReduceBytes, 25_557_032*2)

	// conv1: 7×7, stride 2, 3 → 64 channels on 224×224: output 112×112×64,
	// each output value 7·7·3 = 147 MACs:
	//   2 × 112·112·64·(7·7·3) × 32 = 2 × 802,816 × 147 × 32 = 7,552,892,928.
	c1 := byName(t, m, "conv1")
	eq(t, "conv1 fwd FLOPs", c1.fwdFLOPs, 2*112*112*64*(7*7*3)*32)
	eq(t, "conv1 fwd FLOPs (literal)", c1.fwdFLOPs, 7_552_892_928)
	// Bytes: 32 × (224·224·3 in + 112·112·64 out) + (9408 weights + 128
	// BN) values, × 2 B = (32 × 953,344 + 9,536) × 2 = 61,033,088.
	eq(t, "conv1 fwd bytes", c1.fwdBytes, (32*(224*224*3+112*112*64)+7*7*3*64+2*64)*2)
	eq(t, "conv1 params", c1.params, 7*7*3*64+2*64)
	// conv1's input is the image: no input gradient.
	eq(t, "conv1 ingrad FLOPs", c1.inGradFLOPs, 0)
	eq(t, "conv1 ingrad bytes", c1.inGradBytes, 0)
	eq(t, "conv1 wtgrad FLOPs", c1.wtGradFLOPs, c1.fwdFLOPs)

	// v1.5: the stride of layer2's first block is on the 3×3 conv: its
	// conv1 stays at 56×56 (1×1, 256 → 128), its conv2 goes to 28×28.
	eq(t, "layer2.0.conv1 fwd FLOPs", byName(t, m, "layer2.0.conv1").fwdFLOPs, 2*56*56*128*256*32)
	eq(t, "layer2.0.conv2 fwd FLOPs", byName(t, m, "layer2.0.conv2").fwdFLOPs, 2*28*28*128*(3*3*128)*32)
	eq(t, "layer2.0.downsample.0 fwd FLOPs", byName(t, m, "layer2.0.downsample.0").fwdFLOPs, 2*28*28*512*256*32)
	eq(t, "layer4.2.conv3 params", byName(t, m, "layer4.2.conv3").params, 512*2048+2*2048)
	fc := byName(t, m, "fc")
	eq(t, "fc params", fc.params, 2048*1000+1000)
	eq(t, "fc comm bytes", fc.commBytes, (2048*1000+1000)*2)

	// Forward MACs per image, summed by hand per stage (torchvision lists
	// ResNet-50 at "4.09 GFLOPS", counting MACs):
	//   conv1                                           118,013,952
	//   layer1: 231,211,008 + 2 × 218,365,952 =         667,942,912
	//   layer2: 372,506,624 + 3 × 218,365,952 =       1,027,604,480
	//   layer3: 372,506,624 + 5 × 218,365,952 =       1,464,336,384
	//   layer4: 372,506,624 + 2 × 218,365,952 =         809,238,528
	//   fc: 2048 × 1000 =                                 2,048,000
	//   total                                         4,089,184,256
	// (a non-first bottleneck costs 218,365,952 MACs at every stage; the
	// first of stages 2–4, with its projection, 372,506,624).
	const macsPerImage = 4_089_184_256
	eq(t, "fwd FLOPs per NPU", tot.fwdFLOPs, 2*macsPerImage*32)
	if g := float64(tot.fwdFLOPs) / 32 / 2 / 1e9; g < 4.085 || g > 4.095 {
		t.Errorf("forward GMACs per image %.4f, want ≈ 4.09", g)
	}
	// Back-prop: input gradient = forward except conv1; weight gradient = forward.
	eq(t, "ingrad FLOPs", tot.inGradFLOPs, tot.fwdFLOPs-c1.fwdFLOPs)
	eq(t, "wtgrad FLOPs", tot.wtGradFLOPs, tot.fwdFLOPs)
}

func TestGNMT(t *testing.T) {
	m := gnmt()
	tot := m.totals()
	// 2 embedding lookups, 8 encoder LSTMs, 8 decoder LSTMs, attention,
	// classifier.
	eq(t, "layers", int64(tot.layers), 20)

	// One unidirectional 1024 → 1024 LSTM: 4 gates × 1024 × (1024 + 1024)
	// weights + 2 × 4 × 1024 biases = 8,388,608 + 8,192 = 8,396,800.
	const lstm11 = 4*1024*(1024+1024) + 8*1024
	eq(t, "lstm 1024→1024 params", lstm11, 8_396_800)
	eq(t, "encoder.rnn_layers.2 params", byName(t, m, "encoder.rnn_layers.2").params, lstm11)
	// Bidirectional first layer: twice that.
	eq(t, "encoder.rnn_layers.0 params", byName(t, m, "encoder.rnn_layers.0").params, 2*lstm11)
	// 2048 → 1024: 4 × 1024 × 3072 + 8192 = 12,591,104.
	const lstm21 = 4*1024*(2048+1024) + 8*1024
	eq(t, "encoder.rnn_layers.1 params", byName(t, m, "encoder.rnn_layers.1").params, lstm21)
	eq(t, "decoder.rnn_layers.6 params", byName(t, m, "decoder.rnn_layers.6").params, lstm21)
	// Attention: linear_q, linear_k (1024², no bias), linear_att,
	// normalize_bias (1024 each), normalize_scalar (1).
	const attn = 2*1024*1024 + 1024 + 1024 + 1
	eq(t, "attention params", byName(t, m, "decoder.att_rnn.attn").params, attn)
	const emb = 32320 * 1024
	const cls = 1024*32320 + 32320
	eq(t, "classifier params", byName(t, m, "decoder.classifier").params, cls)
	// Totals: shared embedding + encoder (bi, 2048→1024, 6 × 1024→1024) +
	// decoder (att_rnn, attention, 7 × 2048→1024) + classifier
	//   = 33,095,680 + 79,765,504 + 98,633,729 + 33,128,000 = 244,622,913.
	wantParams := int64(emb + 2*lstm11 + lstm21 + 6*lstm11 + lstm11 + attn + 7*lstm21 + cls)
	eq(t, "params", tot.params, wantParams)
	eq(t, "params (literal)", tot.params, 244_622_913)
	eq(t, "all-reduce bytes", tot.allReduceBytes, 2*244_622_913)
	// The shared embedding is all-reduced once, on the encoder's row.
	dec := byName(t, m, "decoder.embedder")
	eq(t, "decoder.embedder params", dec.params, 0)
	if dec.comm != commNone {
		t.Errorf("decoder.embedder comm %q, want none", dec.comm)
	}
	eq(t, "encoder.embedder comm bytes", byName(t, m, "encoder.embedder").commBytes, emb*2)

	// A 1024 → 1024 LSTM over 50 steps, batch 128:
	//   2 × 50 × 4·1024·2048 × 128 = 107,374,182,400 FLOPs.
	eq(t, "encoder.rnn_layers.2 fwd FLOPs", byName(t, m, "encoder.rnn_layers.2").fwdFLOPs, 107_374_182_400)
	// Classifier: 2 × 50 × 1024 × 32320 × 128 = 423,624,704,000.
	c := byName(t, m, "decoder.classifier")
	eq(t, "classifier fwd FLOPs", c.fwdFLOPs, 423_624_704_000)
	// Bytes: 128 × 50 × (1024 + 32320) + 33,128,000 values × 2 B.
	eq(t, "classifier fwd bytes", c.fwdBytes, (128*50*(1024+32320)+cls)*2)
	// Attention: (50 + 50) × 1024² + 2 × 50 × 50 × 1024 MACs per sentence.
	a := byName(t, m, "decoder.att_rnn.attn")
	eq(t, "attention fwd FLOPs", a.fwdFLOPs, 2*(100*1024*1024+2*50*50*1024)*128)
	eq(t, "attention wtgrad FLOPs", a.wtGradFLOPs, 2*(100*1024*1024+50*50*1024)*128)
	// Embedding lookup: read 128 × 50 rows of 1024 and write them out.
	eq(t, "encoder.embedder fwd bytes", byName(t, m, "encoder.embedder").fwdBytes, 2*128*50*1024*2)
}

func TestDLRM(t *testing.T) {
	m := dlrm()
	tot := m.totals()
	// emb, 3 bottom, interaction, 5 top.
	eq(t, "layers", int64(tot.layers), 10)
	e := m.rows()[0]
	if e.name != "emb" || e.comm != commAllToAll {
		t.Fatalf("row 0 %s comm %s, want emb alltoall", e.name, e.comm)
	}
	// All-to-all per NPU: batch 512 × 26 tables × 128 × 2 B = 3,407,872.
	eq(t, "all-to-all bytes", e.commBytes, 512*26*128*2)
	eq(t, "all-to-all bytes (literal)", e.commBytes, 3_407_872)
	// 187,767,399 rows in the 26 Criteo Terabyte tables (40M cap), × 128.
	eq(t, "emb params", e.params, 187_767_399*128)
	eq(t, "emb fwd bytes", e.fwdBytes, 2*512*26*128*2)
	eq(t, "emb ingrad bytes", e.inGradBytes, 0)
	// MLP parameters, weights + biases:
	//   bottom 13·512+512 + 512·256+256 + 256·128+128          = 171,392
	//   top 479·1024+1024 + 1024·1024+1024 + 1024·512+512
	//       + 512·256+256 + 256·1+1                             = 2,197,505
	const mlp = 13*512 + 512 + 512*256 + 256 + 256*128 + 128 +
		479*1024 + 1024 + 1024*1024 + 1024 + 1024*512 + 512 + 512*256 + 256 + 256 + 1
	eq(t, "MLP params", mlp, 171_392+2_197_505)
	eq(t, "data-parallel params", tot.dataParallelParams, mlp)
	eq(t, "all-reduce bytes", tot.allReduceBytes, mlp*2)
	// Interaction: 27 vectors of 128 → 128 + 27·26/2 = 479 values; one
	// 27×27 Gram matrix per sample, 27·27·128 MACs.
	in := byName(t, m, "interaction")
	eq(t, "interaction fwd FLOPs", in.fwdFLOPs, 2*27*27*128*512)
	eq(t, "interaction fwd bytes", in.fwdBytes, 512*(27*128+479)*2)
	eq(t, "interaction wtgrad FLOPs", in.wtGradFLOPs, 0)
	eq(t, "top_mlp.0 params", byName(t, m, "top_mlp.0").params, 479*1024+1024)
	// bot_mlp.0 reads the dense features: no input gradient.
	eq(t, "bot_mlp.0 ingrad FLOPs", byName(t, m, "bot_mlp.0").inGradFLOPs, 0)
	eq(t, "top_mlp.1 fwd FLOPs", byName(t, m, "top_mlp.1").fwdFLOPs, 2*1024*1024*512)
	// The forward pass waits for the all-to-all after row 3 (bot_mlp.2).
	var last string
	for _, kv := range m.extra {
		if kv[0] == "last_bottom_mlp" {
			last = kv[1]
		}
	}
	i, err := strconv.Atoi(last)
	if err != nil || m.layers[i].name != "bot_mlp.2" || m.layers[i+1].name != "interaction" {
		t.Errorf("last_bottom_mlp %q does not index bot_mlp.2 before the interaction", last)
	}
}

// TestRules checks the column rules of docs/workloads.md on every row.
func TestRules(t *testing.T) {
	for _, m := range models() {
		for i, r := range m.rows() {
			l := m.layers[i]
			switch r.comm {
			case commAllReduce:
				if r.params <= 0 || r.commBytes != 2*r.params {
					t.Errorf("%s %s: all-reduce %d B for %d params, want params × 2", m.name, r.name, r.commBytes, r.params)
				}
			case commNone:
				if r.commBytes != 0 {
					t.Errorf("%s %s: comm none with %d B", m.name, r.name, r.commBytes)
				}
			case commAllToAll:
				if m.parallelism != "HYBRID_DLRM" || r.kind != kindEmbedding {
					t.Errorf("%s %s: all-to-all outside DLRM's embedding", m.name, r.name)
				}
			default:
				t.Errorf("%s %s: comm %q", m.name, r.name, r.comm)
			}
			if m.parallelism == "DATA" && r.params > 0 && r.comm != commAllReduce {
				t.Errorf("%s %s: data-parallel layer with parameters and no all-reduce", m.name, r.name)
			}
			if r.kind == kindEmbedding {
				continue
			}
			if r.fwdFLOPs != 2*l.macs*m.batch {
				t.Errorf("%s %s: fwd FLOPs %d, want 2 × MACs × batch", m.name, r.name, r.fwdFLOPs)
			}
			if want := (m.batch*(l.in+l.out) + l.params) * 2; r.fwdBytes != want {
				t.Errorf("%s %s: fwd bytes %d, want %d", m.name, r.name, r.fwdBytes, want)
			}
			if l.noInGrad != (r.inGradFLOPs == 0) || (!l.noInGrad && r.inGradBytes != r.fwdBytes) {
				t.Errorf("%s %s: input gradient %d FLOPs %d B (first layer %v)", m.name, r.name, r.inGradFLOPs, r.inGradBytes, l.noInGrad)
			}
		}
	}
}

// TestCSVsUpToDate checks that the checked-in CSVs are exactly what the
// generator writes now, and that they parse as the documented format.
func TestCSVsUpToDate(t *testing.T) {
	for _, m := range models() {
		var b bytes.Buffer
		if err := m.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "builtin", m.file)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run: go run ./workload/builtin/gen -out workload/builtin)", err)
		}
		if !bytes.Equal(got, b.Bytes()) {
			t.Errorf("%s is stale: run go run ./workload/builtin/gen -out workload/builtin", path)
		}
		if !strings.Contains(string(got), "\n# source: ") {
			t.Errorf("%s: no # source: line", path)
		}
		r := csv.NewReader(bytes.NewReader(got))
		r.Comment = '#'
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if strings.Join(recs[0], ",") != strings.Join(header, ",") {
			t.Errorf("%s: header %v", path, recs[0])
		}
		if len(recs)-1 != len(m.layers) {
			t.Errorf("%s: %d rows, want %d", path, len(recs)-1, len(m.layers))
		}
		for _, rec := range recs[1:] {
			for _, c := range []int{2, 3, 4, 5, 6, 7, 8, 10} {
				if v, err := strconv.ParseInt(rec[c], 10, 64); err != nil || v < 0 {
					t.Errorf("%s %s: column %s = %q", path, rec[0], header[c], rec[c])
				}
			}
		}
	}
}
