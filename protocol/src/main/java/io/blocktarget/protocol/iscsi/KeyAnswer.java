package io.blocktarget.protocol.iscsi;

import java.util.Objects;
import java.util.Optional;

/** The outcome of negotiating one offered key (RFC 7143 §6.2). */
public sealed interface KeyAnswer {
    /** The value the responder sends back for the key; empty when nothing is sent (declarations). */
    Optional<String> responseValue();

    /** The negotiated value, sent back (§6.2.1/§6.2.2). */
    record Value(String value) implements KeyAnswer {
        public Value {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public Optional<String> responseValue() {
            return Optional.of(value);
        }
    }

    /** The offer is illegal here (bad value, wrong phase, wrong sender): answer "Reject" (§6.2). */
    record Reject(String why) implements KeyAnswer {
        @Override
        public Optional<String> responseValue() {
            return Optional.of("Reject");
        }
    }

    /** An unknown key (§6.2: "NotUnderstood"). */
    record NotUnderstood() implements KeyAnswer {
        @Override
        public Optional<String> responseValue() {
            return Optional.of("NotUnderstood");
        }
    }

    /** Meaningless in this session, e.g. MaxBurstLength in a Discovery session (§6.2: "Irrelevant"). */
    record Irrelevant() implements KeyAnswer {
        @Override
        public Optional<String> responseValue() {
            return Optional.of("Irrelevant");
        }
    }

    /**
     * A well-formed declaration (or SendTargets / CHAP input) that the login layer records or acts on;
     * no answer is generated here.
     */
    record Declared(String value) implements KeyAnswer {
        public Declared {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public Optional<String> responseValue() {
            return Optional.empty();
        }
    }
}
