package dev.attestgate.client

import java.security.SecureRandom
import java.util.Base64
import java.util.Collections
import java.util.UUID

/**
 * The local stack the flow tests run against, as local-harness/client_stack.py started it (its variables):
 * the real `bootstrap` behind the Lambda harness, moto, the fake Google and the fake upstream.
 */
object LocalStack {
    private fun variable(name: String): String = System.getenv(name)
        ?: throw IllegalStateException("$name is not set: run the flow tests through local-harness/client_stack.py (make android-client-check)")

    val front: String get() = variable("ATTESTGATE_FRONT")
    val ceilingFront: String get() = variable("ATTESTGATE_CEILING_FRONT")
    val google: String get() = variable("ATTESTGATE_GOOGLE")
    val upstream: String get() = variable("ATTESTGATE_UPSTREAM")
    val dynamodb: String get() = variable("ATTESTGATE_DYNAMODB")
    val table: String get() = variable("ATTESTGATE_TABLE")
    val packageName: String get() = variable("ATTESTGATE_PACKAGE")
    val certificateDigest: String get() = variable("ATTESTGATE_CERT_DIGEST")
    val harness: String get() = variable("ATTESTGATE_HARNESS")
    /** The operator CLI with the main front's environment. */
    val cli: String get() = variable("ATTESTGATE_CLI")

    private val transport = UrlConnectionTransport()
    private val random = SecureRandom()

    fun newDeviceId(): String = UUID.randomUUID().toString()

    fun randomToken(prefix: String): String {
        val bytes = ByteArray(24)
        random.nextBytes(bytes)
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)
    }

    /** POSTs [body] to a control endpoint; returns status and text. */
    fun post(url: String, body: String, headers: List<Pair<String, String>> = emptyList()): Pair<Int, String> {
        val response = transport.send(HttpRequest("POST", url, listOf("Content-Type" to "application/json") + headers,
            body.toByteArray(Charsets.UTF_8)))
        return response.status to String(response.readBody(1 shl 20), Charsets.UTF_8)
    }

    /** GETs [url]; returns status and text. */
    fun get(url: String): Pair<Int, String> {
        val response = transport.send(HttpRequest("GET", url, emptyList(), ByteArray(0)))
        return response.status to String(response.readBody(16 shl 20), Charsets.UTF_8)
    }

    /** What the main front's bootstraps have logged so far (the harness's `GET /logs`), as one text. */
    fun logs(): String {
        val (status, text) = get("$harness/logs")
        check(status == 200) { "harness /logs: $status" }
        return text
    }

    /**
     * Runs `attestgate` [arguments] on the main front's table: its exit status and stdout (its audit line on
     * stderr is returned as the third part).
     */
    fun attestgate(vararg arguments: String): Triple<Int, String, String> {
        val errors = java.io.File.createTempFile("attestgate-cli", ".stderr")
        try {
            val process = ProcessBuilder(listOf(cli) + arguments).redirectError(errors).start()
            process.outputStream.close()
            val out = String(process.inputStream.readBytes(), Charsets.UTF_8)
            check(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) { "attestgate ${arguments.joinToString(" ")}: no exit" }
            return Triple(process.exitValue(), out, errors.readText())
        } finally {
            errors.delete()
        }
    }

    /** The fake upstream answers its next [count] calls with [status] (the provider is down). */
    fun failUpstream(status: Int, count: Int) {
        val (code, text) = post("$upstream/control/fail", "{\"status\":$status,\"count\":$count}")
        check(code == 200) { "fake upstream control: $code $text" }
    }

    /**
     * Writes a challenge row as the server's challenge store does (docs/api.md section 6: `DEVICE#{id}` /
     * `ATTEST_CHALLENGE#{challenge, base64url}`, `expires_at`), so that a test can prove a request whose
     * challenge it chose: the known-answer vector. moto takes the request unsigned.
     */
    fun plantChallenge(deviceId: String, challenge: String, expiresAtSeconds: Long) {
        val key = Base64.getUrlEncoder().withoutPadding().encodeToString(Base64.getDecoder().decode(challenge))
        val item = "{\"TableName\":${JsonText.quote(table)},\"Item\":{" +
            "\"PK\":{\"S\":${JsonText.quote("DEVICE#$deviceId")}},\"SK\":{\"S\":${JsonText.quote("ATTEST_CHALLENGE#$key")}}," +
            "\"expires_at\":{\"N\":\"$expiresAtSeconds\"},\"TTL\":{\"N\":\"$expiresAtSeconds\"}}}"
        val (code, text) = post(dynamodb, item, listOf(
            "Content-Type" to "application/x-amz-json-1.0",
            "X-Amz-Target" to "DynamoDB_20120810.PutItem",
            "Authorization" to "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, " +
                "SignedHeaders=host, Signature=00"
        ))
        check(code == 200) { "PutItem: $code $text" }
    }
}

/** A transport that records what the client sent and what came back (status), around the real one. */
class RecordingTransport(private val inner: HttpTransport = UrlConnectionTransport()) : HttpTransport {
    class Exchange(val request: HttpRequest, val status: Int)

    val exchanges: MutableList<Exchange> = Collections.synchronizedList(ArrayList<Exchange>())

    override fun send(request: HttpRequest): HttpResponse {
        val response = inner.send(request)
        exchanges.add(Exchange(request, response.status))
        return response
    }

    /** The exchanges whose URL path starts with [path]. */
    fun to(path: String): List<Exchange> = synchronized(exchanges) {
        exchanges.filter { java.net.URL(it.request.url).path.startsWith(path) }
    }
}
