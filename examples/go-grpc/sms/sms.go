// Package sms is the example's one-method gRPC service, sms.SMS/Send, written by hand so the
// example needs no protoc: the request and the reply are protobuf's well-known StringValue
// (the user, and what was sent).
package sms

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// SendMethod is the method's full name, as interceptors see it.
const SendMethod = "/sms.SMS/Send"

// Send sends an SMS to user.
type Send func(ctx context.Context, user string) (string, error)

// Register serves send as sms.SMS/Send on server.
func Register(server *grpc.Server, send Send) {
	server.RegisterService(&grpc.ServiceDesc{
		ServiceName: "sms.SMS",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Send",
			Handler: func(_ any, ctx context.Context, decode func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
				request := new(wrapperspb.StringValue)
				if err := decode(request); err != nil {
					return nil, err
				}
				handler := func(ctx context.Context, req any) (any, error) {
					sent, err := send(ctx, req.(*wrapperspb.StringValue).GetValue())
					return wrapperspb.String(sent), err
				}
				if interceptor == nil {
					return handler(ctx, request)
				}
				return interceptor(ctx, request, &grpc.UnaryServerInfo{FullMethod: SendMethod}, handler)
			},
		}},
	}, struct{}{})
}

// Call sends one SMS to user over conn, the user also in the call's "user" metadata.
func Call(ctx context.Context, conn grpc.ClientConnInterface, user string, opts ...grpc.CallOption) (string, error) {
	reply := new(wrapperspb.StringValue)
	err := conn.Invoke(ctx, SendMethod, wrapperspb.String(user), reply, opts...)
	return reply.GetValue(), err
}
