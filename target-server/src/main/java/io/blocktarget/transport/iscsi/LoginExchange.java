package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.IscsiKey;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.KeyAnswer;
import io.blocktarget.protocol.iscsi.KeyNegotiation;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.protocol.iscsi.TargetPolicy;
import io.blocktarget.protocol.iscsi.TextAccumulator;
import io.blocktarget.protocol.iscsi.TextParameter;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.scsi.ScsiTargetDevice;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The target side of one connection's login (RFC 7143 §6.3, §11.12-13): security stage with AuthMethod
 * None or CHAP (§12.1.3), operational negotiation through {@link KeyNegotiation} plus the cross-key
 * rules, and the checks on the leading Login Request. Pure apart from the CHAP challenge: it maps requests
 * to {@link LoginStep}s; the connection sends them. Lives on the connection's event loop.
 */
final class LoginExchange {
    /** RFC 7143 is version 0x00 (§11.12.4). */
    static final int VERSION = 0x00;
    /** §6.1: at least 8192 bytes of continued text must be accepted; we take 64 KiB. */
    static final int MAX_LOGIN_TEXT = 64 * 1024;
    private static final Set<IscsiKey> HANDLED_AT_START = Set.of(IscsiKey.INITIATOR_NAME, IscsiKey.TARGET_NAME,
            IscsiKey.SESSION_TYPE, IscsiKey.INITIATOR_ALIAS);
    private static final Set<IscsiKey> AUTH_KEYS = Set.of(IscsiKey.AUTH_METHOD, IscsiKey.CHAP_A, IscsiKey.CHAP_I,
            IscsiKey.CHAP_C, IscsiKey.CHAP_N, IscsiKey.CHAP_R);

    /** The server's settings, then (once TargetName is known) that target's: its {@code session:} knobs. */
    private IscsiSettings settings;
    private final Map<String, ScsiTargetDevice> targets;
    private final IntPredicate sessionExists;
    private final String who;
    private final Map<IscsiKey, String> negotiated = new EnumMap<>(IscsiKey.class);
    private LoginState state = LoginState.SECURITY;
    private LoginRequest leading;
    private TextAccumulator text = TextAccumulator.empty(MAX_LOGIN_TEXT);
    private SessionType sessionType = SessionType.NORMAL;
    private String initiatorName;
    private Optional<ScsiTargetDevice> target = Optional.empty();
    private Optional<Chap> chap = Optional.empty();
    private Optional<ChapAuthenticator> authenticator = Optional.empty();
    private String initiatorMaxRecvDataSegmentLength =
            IscsiKey.MAX_RECV_DATA_SEGMENT_LENGTH.defaultValue().orElseThrow();
    private DeclaredLength ourLength = DeclaredLength.NOT_SENT;

    private enum DeclaredLength { NOT_SENT, SENT }

    LoginExchange(IscsiSettings settings, Map<String, ScsiTargetDevice> targets, IntPredicate sessionExists,
                  String who) {
        this.settings = settings;
        this.targets = targets;
        this.sessionExists = sessionExists;
        this.who = who;
    }

    LoginState state() {
        return state;
    }

    /** The settings this login negotiates with: the target's once its name is known. */
    IscsiSettings settings() {
        return settings;
    }

    Optional<String> initiatorName() {
        return Optional.ofNullable(initiatorName);
    }

    Optional<String> targetName() {
        return target.map(ScsiTargetDevice::targetName);
    }

    /** Handles one Login Request; the caller keeps ownership of it. Never throws for what the initiator sent. */
    LoginStep handle(LoginRequest request) {
        try {
            LoginStep step = step(request);
            if (step instanceof LoginStep.Fail) {
                fail();
            }
            return step;
        } catch (IscsiProtocolException e) {
            fail();
            return new LoginStep.Fail(LoginStatus.INITIATOR_ERROR, e.getMessage());
        } catch (RuntimeException e) {
            // §11.13.5 class 3: the target cannot go on — a bug or a device failure, not the initiator's fault.
            fail();
            return new LoginStep.Fail(LoginStatus.TARGET_ERROR, "target error: " + e);
        }
    }

    private void fail() {
        if (LoginState.MACHINE.allows(state, LoginState.FAILED)) {
            transitionTo(LoginState.FAILED);
        }
    }

    private LoginStep step(LoginRequest request) {
        if (state == LoginState.COMPLETE || state == LoginState.FAILED) {
            return new LoginStep.Fail(LoginStatus.INVALID_DURING_LOGIN, "login already ended in " + state);
        }
        Optional<LoginStep.Fail> mismatch = checkHeader(request);
        if (mismatch.isPresent()) {
            return mismatch.get();
        }
        text = text.append(request.data());
        LoginFlags flags = request.flags();
        if (flags.continueBit()) {
            // §11.12.2 / §6.1: more text follows; answer with an empty response and wait.
            return new LoginStep.Respond(new LoginFlags(false, false, flags.csg(), flags.csg()), TextParameters.EMPTY);
        }
        TextParameters offered = text.complete();
        text = TextAccumulator.empty(MAX_LOGIN_TEXT);
        Map<String, String> answers = new LinkedHashMap<>();
        if (initiatorName == null) {
            Optional<LoginStep.Fail> refused = start(request, offered);
            if (refused.isPresent()) {
                return refused.get();
            }
            // §13.9: TargetPortalGroupTag goes in the first Login Response that answers keys.
            answers.put(IscsiKey.TARGET_PORTAL_GROUP_TAG.keyName(), Integer.toString(settings.portalGroupTag()));
        }
        return switch (flags.csg()) {
            case SECURITY_NEGOTIATION -> security(flags, offered, answers);
            case LOGIN_OPERATIONAL_NEGOTIATION -> operational(flags, offered, answers);
            case FULL_FEATURE_PHASE -> new LoginStep.Fail(LoginStatus.INITIATOR_ERROR, "CSG is full feature phase");
        };
    }

    private Optional<LoginStep.Fail> checkHeader(LoginRequest request) {
        if (leading == null) {
            leading = request;
            if (request.versionMin() > VERSION) {
                return Optional.of(new LoginStep.Fail(LoginStatus.UNSUPPORTED_VERSION,
                        "Version-min " + request.versionMin()));
            }
            return Optional.empty();
        }
        // §11.12: ISID, TSIH, CID and ITT stay the same through one login.
        if (request.isid() != leading.isid() || request.tsih() != leading.tsih() || request.cid() != leading.cid()
                || request.itt() != leading.itt()) {
            return Optional.of(new LoginStep.Fail(LoginStatus.INITIATOR_ERROR,
                    "ISID, TSIH, CID or ITT changed during login"));
        }
        return Optional.empty();
    }

    /** Checks the leading Login Request's declarations (§6.3.1, §13.11, §13.21). */
    private Optional<LoginStep.Fail> start(LoginRequest request, TextParameters offered) {
        Optional<String> name = offered.get(IscsiKey.INITIATOR_NAME.keyName()).filter(n -> !n.isEmpty());
        if (name.isEmpty()) {
            return Optional.of(new LoginStep.Fail(LoginStatus.MISSING_PARAMETER, "no InitiatorName"));
        }
        initiatorName = name.get();
        Optional<String> type = offered.get(IscsiKey.SESSION_TYPE.keyName());
        if (type.isPresent()) {
            Optional<SessionType> parsed = SessionType.fromKeyValue(type.get());
            if (parsed.isEmpty()) {
                return Optional.of(new LoginStep.Fail(LoginStatus.SESSION_TYPE_NOT_SUPPORTED,
                        "SessionType=" + type.get()));
            }
            sessionType = parsed.get();
        }
        if (sessionType == SessionType.NORMAL) {
            Optional<String> targetName = offered.get(IscsiKey.TARGET_NAME.keyName());
            if (targetName.isEmpty()) {
                return Optional.of(new LoginStep.Fail(LoginStatus.MISSING_PARAMETER, "no TargetName"));
            }
            target = Optional.ofNullable(targets.get(targetName.get()));
            if (target.isEmpty()) {
                return Optional.of(new LoginStep.Fail(LoginStatus.NOT_FOUND, "no target " + targetName.get()));
            }
            if (!settings.admits(targetName.get(), initiatorName)) {
                // §11.13.5: 0202 "the initiator is not allowed access to the given target" — an authorization
                // failure, not 0201 (nothing was authenticated yet); checked before CHAP so no secret is tried.
                return Optional.of(new LoginStep.Fail(LoginStatus.AUTHORIZATION_FAILURE,
                        initiatorName + " is not on the initiators list of " + targetName.get()));
            }
            chap = Optional.ofNullable(settings.chap().get(targetName.get()));
            // the target's MaxRecvDataSegmentLength, burst lengths and queue depth, read once per login (issue 11)
            settings = settings.forTarget(targetName.get());
        } else {
            // §12.1.3 applies to discovery sessions as well: the server-wide discovery-chap.
            chap = settings.discoveryChap();
        }
        if (request.tsih() != 0) {
            // MaxConnections=1: a connection can never be added to an existing session.
            return Optional.of(sessionExists.test(request.tsih())
                    ? new LoginStep.Fail(LoginStatus.TOO_MANY_CONNECTIONS, "MaxConnections=1")
                    : new LoginStep.Fail(LoginStatus.SESSION_DOES_NOT_EXIST, "TSIH " + request.tsih()));
        }
        return Optional.empty();
    }

    private LoginStep security(LoginFlags flags, TextParameters offered, Map<String, String> answers) {
        if (state == LoginState.OPERATIONAL) {
            return new LoginStep.Fail(LoginStatus.INITIATOR_ERROR, "back to the security stage");
        }
        Optional<LoginStep.Fail> failed = switch (state) {
            case SECURITY -> authMethod(offered, answers);
            case CHAP_AWAIT_ALGORITHM -> chapAlgorithm(offered, answers);
            case CHAP_AWAIT_RESPONSE -> chapResponse(offered, answers);
            default -> Optional.empty();
        };
        if (failed.isPresent()) {
            return failed.get();
        }
        negotiateOthers(offered, LoginStage.SECURITY_NEGOTIATION, answers);
        if (!flags.transit() || state != LoginState.AUTHENTICATED) {
            return respond(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION, answers);
        }
        if (flags.nsg() == LoginStage.FULL_FEATURE_PHASE) {
            return complete(LoginStage.SECURITY_NEGOTIATION, answers);
        }
        transitionTo(LoginState.OPERATIONAL);
        return respond(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, answers);
    }

    private Optional<LoginStep.Fail> authMethod(TextParameters offered, Map<String, String> answers) {
        Optional<String> methods = offered.get(IscsiKey.AUTH_METHOD.keyName());
        if (methods.isEmpty()) {
            return chap.isPresent() ? authFailure("the target requires CHAP") : authenticated();
        }
        String preference = chap.isPresent() ? "CHAP" : "None";
        KeyAnswer answer = KeyNegotiation.negotiate(IscsiKey.AUTH_METHOD, methods.get(), policy(LoginStage.SECURITY_NEGOTIATION,
                Map.of(IscsiKey.AUTH_METHOD, preference)));
        if (!(answer instanceof KeyAnswer.Value(String method))) {
            return authFailure("AuthMethod=" + methods.get() + ", the target requires " + preference);
        }
        answers.put(IscsiKey.AUTH_METHOD.keyName(), method);
        if (method.equals("CHAP")) {
            authenticator = Optional.of(new ChapAuthenticator(chap.orElseThrow()));
            transitionTo(LoginState.CHAP_AWAIT_ALGORITHM);
            return Optional.empty();
        }
        return authenticated();
    }

    private Optional<LoginStep.Fail> chapAlgorithm(TextParameters offered, Map<String, String> answers) {
        Optional<String> algorithms = offered.get(IscsiKey.CHAP_A.keyName());
        if (algorithms.isEmpty() || !ChapAuthenticator.acceptsMd5(algorithms.get())) {
            return authFailure("CHAP_A " + algorithms.orElse("missing") + " has no MD5 (5)");
        }
        ChapAuthenticator.Challenge c = authenticator.orElseThrow().challenge();
        answers.put(IscsiKey.CHAP_A.keyName(), ChapAuthenticator.MD5);
        answers.put(IscsiKey.CHAP_I.keyName(), c.identifierValue());
        answers.put(IscsiKey.CHAP_C.keyName(), c.challengeValue());
        transitionTo(LoginState.CHAP_AWAIT_RESPONSE);
        return Optional.empty();
    }

    private Optional<LoginStep.Fail> chapResponse(TextParameters offered, Map<String, String> answers) {
        Optional<String> name = offered.get(IscsiKey.CHAP_N.keyName());
        Optional<String> response = offered.get(IscsiKey.CHAP_R.keyName());
        ChapAuthenticator auth = authenticator.orElseThrow();
        if (name.isEmpty() || response.isEmpty() || !auth.verify(name.get(), response.get())) {
            return authFailure("CHAP response of " + name.orElse("(no CHAP_N)") + " does not verify");
        }
        Optional<String> mutualId = offered.get(IscsiKey.CHAP_I.keyName());
        Optional<String> mutualChallenge = offered.get(IscsiKey.CHAP_C.keyName());
        if (mutualId.isPresent() || mutualChallenge.isPresent()) {
            Optional<List<String>> answer = mutualId.isPresent() && mutualChallenge.isPresent()
                    ? auth.answer(mutualId.get(), mutualChallenge.get()) : Optional.empty();
            if (answer.isEmpty()) {
                return authFailure("mutual CHAP requested but not configured, or the challenge is malformed");
            }
            answers.put(IscsiKey.CHAP_N.keyName(), answer.get().get(0));
            answers.put(IscsiKey.CHAP_R.keyName(), answer.get().get(1));
        }
        return authenticated();
    }

    private Optional<LoginStep.Fail> authenticated() {
        transitionTo(LoginState.AUTHENTICATED);
        return Optional.empty();
    }

    private static Optional<LoginStep.Fail> authFailure(String why) {
        return Optional.of(new LoginStep.Fail(LoginStatus.AUTHENTICATION_FAILURE, why));
    }

    private LoginStep operational(LoginFlags flags, TextParameters offered, Map<String, String> answers) {
        switch (state) {
            case SECURITY -> {
                if (chap.isPresent()) {
                    return new LoginStep.Fail(LoginStatus.AUTHENTICATION_FAILURE,
                            "security negotiation skipped, the target requires CHAP");
                }
                transitionTo(LoginState.OPERATIONAL);
            }
            case AUTHENTICATED -> transitionTo(LoginState.OPERATIONAL);
            case OPERATIONAL -> {
            }
            default -> {
                return new LoginStep.Fail(LoginStatus.INITIATOR_ERROR, "operational stage before CHAP finished");
            }
        }
        negotiateOthers(offered, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, answers);
        declareOurLength(answers);
        if (flags.transit()) {
            if (flags.nsg() != LoginStage.FULL_FEATURE_PHASE) {
                return new LoginStep.Fail(LoginStatus.INITIATOR_ERROR, "NSG " + flags.nsg() + " from operational");
            }
            return complete(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, answers);
        }
        return respond(false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                answers);
    }

    /** Every key that is not a start declaration or part of authentication, through the negotiation table. */
    private void negotiateOthers(TextParameters offered, LoginStage stage, Map<String, String> answers) {
        TargetPolicy policy = policy(stage, preferences());
        for (TextParameter p : offered.entries()) {
            Optional<IscsiKey> key = IscsiKey.fromKeyName(p.key());
            if (key.isPresent() && HANDLED_AT_START.contains(key.get())) {
                continue;
            }
            if (key.isPresent() && AUTH_KEYS.contains(key.get()) && stage == LoginStage.SECURITY_NEGOTIATION) {
                continue;
            }
            KeyAnswer answer = KeyNegotiation.negotiate(p.key(), p.value(), policy);
            switch (answer) {
                case KeyAnswer.Value(String v) -> negotiated.put(key.orElseThrow(), v);
                case KeyAnswer.Declared(String v) -> {
                    if (key.orElseThrow() == IscsiKey.MAX_RECV_DATA_SEGMENT_LENGTH) {
                        initiatorMaxRecvDataSegmentLength = v;
                    }
                }
                default -> {
                }
            }
            answer.responseValue().ifPresent(v -> answers.put(p.key(), v));
        }
        crossKeyRules(answers);
    }

    /** §13.14: FirstBurstLength ≤ MaxBurstLength, and irrelevant when InitialR2T=Yes and ImmediateData=No. */
    private void crossKeyRules(Map<String, String> answers) {
        String first = IscsiKey.FIRST_BURST_LENGTH.keyName();
        if (!answers.containsKey(first) || !negotiated.containsKey(IscsiKey.FIRST_BURST_LENGTH)) {
            return;
        }
        OperationalParameters p = parameters();
        if (p.initialR2T() && !p.immediateData() && negotiated.containsKey(IscsiKey.INITIAL_R2T)
                && negotiated.containsKey(IscsiKey.IMMEDIATE_DATA)) {
            answers.put(first, "Irrelevant");
            return;
        }
        if (p.firstBurstLength() > p.maxBurstLength()) {
            String capped = Integer.toString(p.maxBurstLength());
            negotiated.put(IscsiKey.FIRST_BURST_LENGTH, capped);
            answers.put(first, capped);
        }
    }

    private Map<IscsiKey, String> preferences() {
        Map<IscsiKey, String> prefs = new EnumMap<>(IscsiKey.class);
        prefs.put(IscsiKey.HEADER_DIGEST, "CRC32C,None");
        prefs.put(IscsiKey.DATA_DIGEST, "CRC32C,None");
        prefs.put(IscsiKey.MAX_CONNECTIONS, "1");
        prefs.put(IscsiKey.INITIAL_R2T, "No");
        prefs.put(IscsiKey.IMMEDIATE_DATA, "Yes");
        prefs.put(IscsiKey.MAX_BURST_LENGTH, Integer.toString(settings.maxBurstLength()));
        prefs.put(IscsiKey.FIRST_BURST_LENGTH, Integer.toString(settings.firstBurstLength()));
        prefs.put(IscsiKey.MAX_OUTSTANDING_R2T, Integer.toString(settings.maxOutstandingR2T()));
        prefs.put(IscsiKey.DATA_PDU_IN_ORDER, "Yes");
        prefs.put(IscsiKey.DATA_SEQUENCE_IN_ORDER, "Yes");
        prefs.put(IscsiKey.ERROR_RECOVERY_LEVEL, "0");
        prefs.put(IscsiKey.DEFAULT_TIME2RETAIN, "0");
        prefs.put(IscsiKey.TASK_REPORTING, "RFC3720");
        prefs.put(IscsiKey.ISCSI_PROTOCOL_LEVEL, "1");
        return prefs;
    }

    private TargetPolicy policy(LoginStage stage, Map<IscsiKey, String> preferences) {
        return new TargetPolicy(preferences, sessionType, stage, TargetPolicy.Connection.LEADING);
    }

    /** §13.12: MaxRecvDataSegmentLength is declarative; the target states its own once. */
    private void declareOurLength(Map<String, String> answers) {
        if (ourLength == DeclaredLength.NOT_SENT) {
            answers.put(IscsiKey.MAX_RECV_DATA_SEGMENT_LENGTH.keyName(),
                    Integer.toString(settings.maxRecvDataSegmentLength()));
            ourLength = DeclaredLength.SENT;
        }
    }

    private LoginStep complete(LoginStage csg, Map<String, String> answers) {
        declareOurLength(answers);
        if (sessionType == SessionType.NORMAL) {
            String name = target.orElseThrow().targetName();
            answers.putIfAbsent(IscsiKey.TARGET_ALIAS.keyName(), name.substring(name.lastIndexOf(':') + 1));
        }
        transitionTo(LoginState.COMPLETE);
        LoginResult result = new LoginResult(sessionType, initiatorName, target, leading.isid(), leading.cid(),
                parameters());
        return new LoginStep.Complete(new LoginFlags(true, false, csg, LoginStage.FULL_FEATURE_PHASE),
                toParameters(answers), result);
    }

    private static LoginStep respond(boolean transit, LoginStage csg, LoginStage nsg, Map<String, String> answers) {
        return new LoginStep.Respond(new LoginFlags(transit, false, csg, nsg), toParameters(answers));
    }

    OperationalParameters parameters() {
        return OperationalParameters.from(negotiated, initiatorMaxRecvDataSegmentLength);
    }

    private static TextParameters toParameters(Map<String, String> answers) {
        TextParameters out = TextParameters.EMPTY;
        for (Map.Entry<String, String> e : answers.entrySet()) {
            out = out.with(e.getKey(), e.getValue());
        }
        return out;
    }

    private void transitionTo(LoginState next) {
        state = States.transition(who, LoginState.MACHINE, state, next);
    }
}
