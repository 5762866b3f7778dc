package org.xiaochong.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.check.OnlineChecker;
import org.xiaochong.check.RecordJson;
import org.xiaochong.method.MethodCheck;

/**
 * What each endpoint of {@link DedupService} answers, once the service let the request in (not
 * stopping, token right): the Deduplicator's verdicts, explanations and state as JSON, and the
 * metrics as text. A bad request is thrown as a {@link Problem} by the {@link RequestReader}.
 * Thread-safe.
 */
final class Endpoints {
  /** Candidates listed per method by {@code /v1/explain} unless {@code ?limit=} says otherwise. */
  private static final int EXPLAIN_LIMIT = 5;

  private final Deduplicator dedup;
  private final RequestReader requests;
  private final ObjectMapper json;
  private final ServiceMetrics metrics;
  private final boolean addsRefused;

  /**
   * @param addsRefused whether {@code ?add=true} is refused (no token is set and anonymous adds are
   *     not allowed)
   */
  Endpoints(
      Deduplicator dedup,
      RequestReader requests,
      ObjectMapper json,
      ServiceMetrics metrics,
      boolean addsRefused) {
    this.dedup = dedup;
    this.requests = requests;
    this.json = json;
    this.metrics = metrics;
    this.addsRefused = addsRefused;
  }

  /** {@code POST /v1/check}: one verdict per record, added too with {@code ?add=true}. */
  void check(Context ctx) throws IOException {
    boolean add = RequestReader.flag(ctx, "add");
    if (add && addsRefused) {
      throw new Problem(
          403,
          "adds-need-token",
          "Adds need an access token",
          "set an access token (DEDUP_SERVE_TOKEN or serve.token) and send it as 'Authorization:"
              + " Bearer <token>', or start serve with --allow-anonymous-adds");
    }
    RequestReader.Body body = requests.records(ctx, true, true);
    List<Deduplicator.Verdict> verdicts =
        add ? dedup.add(body.records()) : dedup.check(body.records());
    ArrayNode answers = json.createArrayNode();
    for (Deduplicator.Verdict verdict : verdicts) {
      metrics.verdict(verdict.verdict(), verdict.keep(), verdict.added());
      answers.add(RecordJson.toJson(json.createObjectNode(), verdict, add));
    }
    answer(ctx, 200, body.array() ? answers : answers.get(0));
  }

  /** {@code POST /v1/explain}: the verdict of one record and each method's candidates. */
  void explain(Context ctx) throws IOException {
    int limit = requests.limit(ctx, EXPLAIN_LIMIT);
    Deduplicator.Explanation explanation =
        dedup.explain(requests.records(ctx, false, false).records().get(0), limit);
    ObjectNode answer = RecordJson.toJson(json.createObjectNode(), explanation.verdict(), false);
    ArrayNode methods = answer.putArray("methods");
    for (OnlineChecker.MethodExplanation method : explanation.methods()) {
      ObjectNode m = methods.addObject().put("method", method.method());
      ArrayNode candidates = m.putArray("candidates");
      for (MethodCheck.Candidate c : method.candidates()) {
        candidates
            .addObject()
            .put("id", c.id())
            .put("score", c.score())
            .put("shared_keys", c.sharedKeys())
            .put("outcome", c.outcome());
      }
    }
    answer(ctx, 200, answer);
  }

  /** {@code GET /v1/health}: the methods, the records indexed and whether the index is written. */
  void health(Context ctx) throws IOException {
    ObjectNode answer = json.createObjectNode().put("status", "ok");
    ArrayNode methods = answer.putArray("methods");
    dedup.methods().forEach(methods::add);
    answer.put("indexed_records", dedup.indexedRecords());
    answer.put("writing", dedup.writing());
    answer(ctx, 200, answer);
  }

  /** {@code GET /metrics}: the service's metrics, in the Prometheus text format. */
  void metrics(Context ctx) throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    metrics.write(text);
    ctx.status(200).contentType(metrics.contentType()).result(text.toByteArray());
  }

  private void answer(Context ctx, int status, JsonNode body) throws IOException {
    ctx.status(status).contentType("application/json").result(json.writeValueAsBytes(body));
  }
}
