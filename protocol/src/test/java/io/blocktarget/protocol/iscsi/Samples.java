package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;

/** One random, valid instance of each of the 18 PDU types; the caller releases them. */
final class Samples {
    private Samples() {
    }

    static List<IscsiPdu> all(Random r) {
        return List.of(
                new NopOut(r.nextBoolean(), r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), data(r)),
                new ScsiCommand(r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(),
                        pick(r, TaskAttribute.values()), r.nextLong(), r.nextInt(), u32(r), r.nextInt(), r.nextInt(),
                        bytes(r, 16 + r.nextInt(3) * r.nextInt(40)),
                        r.nextBoolean() ? OptionalLong.of(u32(r)) : OptionalLong.empty(), data(r)),
                new TaskManagementRequest(r.nextBoolean(), r.nextInt(128), r.nextLong(), r.nextInt(), r.nextInt(),
                        r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()),
                new LoginRequest(flags(r), r.nextInt(256), r.nextInt(256), r.nextLong() >>> 16, r.nextInt(65536),
                        r.nextInt(), r.nextInt(65536), r.nextInt(), r.nextInt(), data(r)),
                new TextRequest(r.nextBoolean(), false, r.nextBoolean(), r.nextLong(), r.nextInt(), r.nextInt(),
                        r.nextInt(), r.nextInt(), data(r)),
                new DataOut(r.nextBoolean(), r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), u32(r),
                        data(r)),
                new LogoutRequest(r.nextBoolean(), pick(r, LogoutReason.values()), r.nextInt(), r.nextInt(65536),
                        r.nextInt(), r.nextInt()),
                new SnackRequest(pick(r, SnackType.values()), r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(),
                        r.nextInt(), r.nextInt()),
                new NopIn(r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), data(r)),
                new ScsiResponse(r.nextInt(256), r.nextInt(256), pick(r, ResidualFlag.values()),
                        pick(r, ResidualFlag.values()), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(),
                        r.nextInt(), u32(r), u32(r),
                        r.nextBoolean() ? ScsiResponse.senseSegment(data(r)) : Unpooled.EMPTY_BUFFER),
                new TaskManagementResponse(pick(r, TmfResponse.values()), r.nextInt(), r.nextInt(), r.nextInt(),
                        r.nextInt()),
                new LoginResponse(flags(r), r.nextInt(256), r.nextInt(256), r.nextLong() >>> 16, r.nextInt(65536),
                        r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), pick(r, LoginStatus.values()), data(r)),
                new TextResponse(false, r.nextBoolean(), r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(),
                        r.nextInt(), r.nextInt(), data(r)),
                dataIn(r),
                new LogoutResponse(pick(r, LogoutResponseCode.values()), r.nextInt(), r.nextInt(), r.nextInt(),
                        r.nextInt(), r.nextInt(65536), r.nextInt(65536)),
                new R2t(r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(),
                        u32(r), u32(r)),
                new AsyncMessage(r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), pick(r, AsyncEvent.values()),
                        r.nextInt(256), r.nextInt(65536), r.nextInt(65536), r.nextInt(65536), data(r)),
                new Reject(pick(r, RejectReason.values()), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(),
                        Unpooled.wrappedBuffer(bytes(r, 48))));
    }

    private static DataIn dataIn(Random r) {
        boolean withStatus = r.nextBoolean();
        return new DataIn(withStatus || r.nextBoolean(), r.nextBoolean(),
                withStatus ? OptionalInt.of(r.nextInt(256)) : OptionalInt.empty(),
                withStatus ? pick(r, ResidualFlag.values()) : ResidualFlag.NONE, r.nextLong(), r.nextInt(),
                r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), u32(r), withStatus ? u32(r) : 0,
                data(r));
    }

    private static LoginFlags flags(Random r) {
        LoginStage[] stages = LoginStage.values();
        boolean transit = r.nextBoolean();
        return new LoginFlags(transit, !transit && r.nextBoolean(), pick(r, stages), pick(r, stages));
    }

    static ByteBuf data(Random r) {
        int n = r.nextInt(4) == 0 ? 0 : r.nextInt(70);
        return n == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes(r, n));
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static long u32(Random r) {
        return r.nextInt() & 0xFFFF_FFFFL;
    }

    static <E> E pick(Random r, E[] values) {
        return values[r.nextInt(values.length)];
    }
}
