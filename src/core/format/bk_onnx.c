/*
 * bk_onnx.c
 *	  The messages of an ONNX model (bk_onnx.h), field by field.  Numeric
 *	  constants go in a TensorProto's raw_data, little-endian as ONNX
 *	  requires, written byte by byte (bk_protobuf.c).
 */
#include "bk_onnx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ModelProto */
#define MODEL_IR_VERSION 1
#define MODEL_PRODUCER_NAME 2
#define MODEL_DOC_STRING 6
#define MODEL_GRAPH 7
#define MODEL_OPSET_IMPORT 8
/* OperatorSetIdProto */
#define OPSET_DOMAIN 1
#define OPSET_VERSION 2
/* GraphProto */
#define GRAPH_NODE 1
#define GRAPH_NAME 2
#define GRAPH_INITIALIZER 5
#define GRAPH_INPUT 11
#define GRAPH_OUTPUT 12
/* NodeProto */
#define NODE_INPUT 1
#define NODE_OUTPUT 2
#define NODE_NAME 3
#define NODE_OP_TYPE 4
#define NODE_ATTRIBUTE 5
#define NODE_DOMAIN 7
/* AttributeProto and its AttributeType */
#define ATTR_NAME 1
#define ATTR_I 3
#define ATTR_INTS 8
#define ATTR_STRINGS 9
#define ATTR_TYPE 20
#define ATTR_TYPE_INT 2
#define ATTR_TYPE_INTS 7
#define ATTR_TYPE_STRINGS 8
/* TensorProto */
#define TENSOR_DIMS 1
#define TENSOR_DATA_TYPE 2
#define TENSOR_STRING_DATA 6
#define TENSOR_NAME 8
#define TENSOR_RAW_DATA 9
/* ValueInfoProto, TypeProto, TypeProto.Tensor, TensorShapeProto */
#define VALUE_NAME 1
#define VALUE_TYPE 2
#define TYPE_TENSOR 1
#define TENSOR_TYPE_ELEM 1
#define TENSOR_TYPE_SHAPE 2
#define SHAPE_DIM 1
#define DIM_VALUE 1
#define DIM_PARAM 2

void
BkOnnxInit(BkOnnx *g, const BkEnv *env)
{
	g->env = env;
	g->next = 0;
	BkPbInit(&g->graph, env);
}

void
BkOnnxFree(BkOnnx *g)
{
	BkPbFree(&g->graph);
}

void
BkOnnxTemp(BkOnnx *g, BkOnnxName name)
{
	snprintf(name, BK_ONNX_NAME_LEN, "_bk_%d", g->next++);
}

static void
value_info(BkOnnx *g, int field, const char *name, int elem, int64_t cols)
{
	BkPb		vi,
				type,
				tensor,
				shape,
				dim;

	BkPbInit(&vi, g->env);
	BkPbInit(&type, g->env);
	BkPbInit(&tensor, g->env);
	BkPbInit(&shape, g->env);
	BkPbInit(&dim, g->env);

	BkPbString(&dim, DIM_PARAM, "N");
	BkPbMessage(&shape, SHAPE_DIM, &dim);
	if (cols >= 0)
	{
		BkPbInit(&dim, g->env);
		BkPbVarint(&dim, DIM_VALUE, (uint64_t) cols);
		BkPbMessage(&shape, SHAPE_DIM, &dim);
	}
	BkPbVarint(&tensor, TENSOR_TYPE_ELEM, (uint64_t) elem);
	BkPbMessage(&tensor, TENSOR_TYPE_SHAPE, &shape);
	BkPbMessage(&type, TYPE_TENSOR, &tensor);
	BkPbString(&vi, VALUE_NAME, name);
	BkPbMessage(&vi, VALUE_TYPE, &type);
	BkPbMessage(&g->graph, field, &vi);
}

void
BkOnnxInput(BkOnnx *g, const char *name, int elem, int64_t cols)
{
	value_info(g, GRAPH_INPUT, name, elem, cols);
}

void
BkOnnxOutput(BkOnnx *g, const char *name, int elem, int64_t cols)
{
	value_info(g, GRAPH_OUTPUT, name, elem, cols);
}

/* a tensor's name, type and dims; returns its number of values */
static size_t
tensor_head(BkPb *t, const char *name, int elem, const int64_t *dims, int ndims)
{
	size_t		n = 1;

	BkPbString(t, TENSOR_NAME, name);
	BkPbVarint(t, TENSOR_DATA_TYPE, (uint64_t) elem);
	for (int i = 0; i < ndims; i++)
	{
		BkPbVarint(t, TENSOR_DIMS, (uint64_t) dims[i]);
		if (!BkMulSize(n, (size_t) dims[i], &n))
			BkRaise(t->env, BK_ERR_LIMIT, NULL, "the export is too large");
	}
	return n;
}

void
BkOnnxDoubles(BkOnnx *g, const char *name, const int64_t *dims, int ndims,
			  const double *v)
{
	BkPb		t,
				raw;
	size_t		n;

	BkPbInit(&t, g->env);
	BkPbInit(&raw, g->env);
	n = tensor_head(&t, name, BK_ONNX_DOUBLE, dims, ndims);
	for (size_t i = 0; i < n; i++)
		BkPbRawDouble(&raw, v[i]);
	BkPbBytes(&t, TENSOR_RAW_DATA, raw.buf, raw.len);
	BkPbFree(&raw);
	BkPbMessage(&g->graph, GRAPH_INITIALIZER, &t);
}

void
BkOnnxInt64s(BkOnnx *g, const char *name, const int64_t *dims, int ndims,
			 const int64_t *v)
{
	BkPb		t,
				raw;
	size_t		n;

	BkPbInit(&t, g->env);
	BkPbInit(&raw, g->env);
	n = tensor_head(&t, name, BK_ONNX_INT64, dims, ndims);
	for (size_t i = 0; i < n; i++)
		BkPbRawInt64(&raw, v[i]);
	BkPbBytes(&t, TENSOR_RAW_DATA, raw.buf, raw.len);
	BkPbFree(&raw);
	BkPbMessage(&g->graph, GRAPH_INITIALIZER, &t);
}

void
BkOnnxStrings(BkOnnx *g, const char *name, int64_t n, const char *const *s,
			  const size_t *len)
{
	BkPb		t;

	BkPbInit(&t, g->env);
	tensor_head(&t, name, BK_ONNX_STRING, &n, 1);
	for (int64_t i = 0; i < n; i++)
		BkPbBytes(&t, TENSOR_STRING_DATA, s[i], len[i]);
	BkPbMessage(&g->graph, GRAPH_INITIALIZER, &t);
}

static void
attr_begin(BkPb *a, BkPb *attrs, const char *name, int type)
{
	BkPbInit(a, attrs->env);
	BkPbString(a, ATTR_NAME, name);
	BkPbVarint(a, ATTR_TYPE, (uint64_t) type);
}

void
BkOnnxAttrInt(BkPb *attrs, const char *name, int64_t v)
{
	BkPb		a;

	attr_begin(&a, attrs, name, ATTR_TYPE_INT);
	BkPbVarint(&a, ATTR_I, (uint64_t) v);
	BkPbMessage(attrs, NODE_ATTRIBUTE, &a);
}

void
BkOnnxAttrInts(BkPb *attrs, const char *name, int n, const int64_t *v)
{
	BkPb		a;

	attr_begin(&a, attrs, name, ATTR_TYPE_INTS);
	for (int i = 0; i < n; i++)
		BkPbVarint(&a, ATTR_INTS, (uint64_t) v[i]);
	BkPbMessage(attrs, NODE_ATTRIBUTE, &a);
}

void
BkOnnxAttrStrings(BkPb *attrs, const char *name, int n, const char *const *s,
				  const size_t *len)
{
	BkPb		a;

	attr_begin(&a, attrs, name, ATTR_TYPE_STRINGS);
	for (int i = 0; i < n; i++)
		BkPbBytes(&a, ATTR_STRINGS, s[i], len[i]);
	BkPbMessage(attrs, NODE_ATTRIBUTE, &a);
}

void
BkOnnxNodeList(BkOnnx *g, const char *op, const char *domain, BkPb *attrs,
			   const char *out, int n_in, const char *const *in)
{
	BkPb		node;
	char		name[BK_ONNX_NAME_LEN];

	BkPbInit(&node, g->env);
	for (int i = 0; i < n_in; i++)
		BkPbString(&node, NODE_INPUT, in[i]);
	BkPbString(&node, NODE_OUTPUT, out);
	snprintf(name, sizeof(name), "_bk_node_%d", g->next++);
	BkPbString(&node, NODE_NAME, name);
	BkPbString(&node, NODE_OP_TYPE, op);
	if (domain[0] != '\0')
		BkPbString(&node, NODE_DOMAIN, domain);
	/* the attributes' bytes are NodeProto fields already */
	if (attrs != NULL)
	{
		BkPbRaw(&node, attrs->buf, attrs->len);
		BkPbFree(attrs);
	}
	BkPbMessage(&g->graph, GRAPH_NODE, &node);
}

void
BkOnnxNode(BkOnnx *g, const char *op, const char *domain, BkPb *attrs,
		   const char *out,...)
{
	const char *in[4];
	int			n = 0;
	va_list		ap;
	const char *s;

	va_start(ap, out);
	while ((s = va_arg(ap, const char *)) != NULL)
	{
		if (n == 4)
			BkRaise(g->env, BK_ERR_INTERNAL, NULL, "a node of more than 4 inputs");
		in[n++] = s;
	}
	va_end(ap);
	BkOnnxNodeList(g, op, domain, attrs, out, n, in);
}

static void
opset(BkPb *model, const char *domain, int64_t version)
{
	BkPb		o;

	BkPbInit(&o, model->env);
	BkPbString(&o, OPSET_DOMAIN, domain);
	BkPbVarint(&o, OPSET_VERSION, (uint64_t) version);
	BkPbMessage(model, MODEL_OPSET_IMPORT, &o);
}

uint8_t *
BkOnnxFinish(BkOnnx *g, const char *doc, size_t *len)
{
	BkPb		model;

	BkPbString(&g->graph, GRAPH_NAME, "budgetkernel");
	BkPbInit(&model, g->env);
	BkPbVarint(&model, MODEL_IR_VERSION, BK_ONNX_IR_VERSION);
	opset(&model, "", BK_ONNX_OPSET);
	opset(&model, BK_ONNX_ML, BK_ONNX_ML_OPSET);
	BkPbString(&model, MODEL_PRODUCER_NAME, "budgetkernel");
	BkPbString(&model, MODEL_DOC_STRING, doc);
	BkPbMessage(&model, MODEL_GRAPH, &g->graph);
	*len = model.len;
	return model.buf;
}
