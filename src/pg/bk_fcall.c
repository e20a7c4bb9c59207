/*
 * bk_fcall.c
 *	  What a call's arguments are, whoever makes the call.
 *
 * PostgreSQL's executor calls an aggregate's support functions with the
 * call expression in flinfo->fn_expr, from which get_fn_expr_argtype()
 * reads each argument's type and AggGetAggref() the aggregate's
 * arguments.  Other callers do not: a distributed engine (Citus's
 * worker_partial_agg and coord_combine_agg) calls the transition,
 * serialisation, deserialisation, combine and final functions through a
 * fresh FmgrInfo with no expression, inside an aggregate of its own.
 * One C function serves several SQL signatures (bk_train's int8, int4,
 * text, float8 and label-less forms), so a type read as unknown once made
 * the label be taken for the parameters and crashed the backend.  These
 * helpers read the declared signature instead when there is no
 * expression, and say so when neither tells.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"

#include "bk_pg.h"

/*
 * The type of argument argno (0: the first, the state of a transition
 * function) of this call: from the call expression when there is one,
 * else from the function's declared signature (every SQL signature of
 * the extension names concrete types).  An error, never a guess, when
 * neither tells.
 */
Oid
BkPgArgType(FunctionCallInfo fcinfo, int argno)
{
	Oid			t = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Oid		   *argtypes;
	int			nargs;

	if (OidIsValid(t))
		return t;
	if (OidIsValid(fcinfo->flinfo->fn_oid) &&
		OidIsValid(get_func_signature(fcinfo->flinfo->fn_oid, &argtypes, &nargs)) &&
		argno < nargs && argno < PG_NARGS() && !IsPolymorphicType(argtypes[argno]) &&
		argtypes[argno] != ANYOID)
		return argtypes[argno];
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot tell the type of argument %d of function %u from its caller",
					argno + 1, fcinfo->flinfo->fn_oid),
			 errdetail("The function was called without its call expression, and its declared type is not a concrete one.")));
	return InvalidOid;			/* keep the compiler quiet */
}

/*
 * An error unless this call passes as many arguments as the function
 * declares.  PostgreSQL's executor always does; a generic caller that
 * builds the call from a list of its own may not, and an argument read
 * past PG_NARGS() is whatever the caller's memory holds.  (When the
 * function's OID is unknown there is no signature to compare with: the
 * callers then check PG_NARGS() against what they read.)
 */
void
BkPgCheckNargs(FunctionCallInfo fcinfo, const char *fname)
{
	Oid		   *argtypes;
	int			nargs;

	if (OidIsValid(fcinfo->flinfo->fn_oid) &&
		OidIsValid(get_func_signature(fcinfo->flinfo->fn_oid, &argtypes, &nargs)) &&
		nargs != PG_NARGS())
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("%s was called with %d arguments, and it takes %d", fname, PG_NARGS(), nargs),
				 errdetail("The caller builds the call itself and passed another number of arguments than the function declares.")));
}

/*
 * Whether an aggregate argument (argno 1: the label of bk_train) is an
 * int2 or int4 column that PostgreSQL cast to float8 to call the float8
 * form.  An int4 label has forms of its own; an int2 one finds no exact
 * form, and of the int4, int8 and float8 forms the float8 one wins (it is
 * the preferred numeric type), so without this an int2 label column would
 * train a regressor: the cast is seen in the aggregate's argument.  (As a
 * window function there is no Aggref to look at: the float8 form is then
 * a regression target, and the documentation says to write label::int8.)
 * Called without the call expression, the Aggref in reach is the caller's
 * own aggregate's, not this one's: nothing is seen then either.
 */
bool
BkPgArgCastFromInteger(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *aggref;
	Node	   *expr;

	if (fcinfo->flinfo->fn_expr == NULL)
		return false;
	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL || list_length(aggref->args) <= argno)
		return false;
	expr = (Node *) list_nth_node(TargetEntry, aggref->args, argno)->expr;
	if (IsA(expr, FuncExpr) &&
		((FuncExpr *) expr)->funcformat == COERCE_IMPLICIT_CAST &&
		list_length(((FuncExpr *) expr)->args) == 1)
	{
		Oid			from = exprType(linitial(((FuncExpr *) expr)->args));

		return from == INT2OID || from == INT4OID;
	}
	return false;
}
