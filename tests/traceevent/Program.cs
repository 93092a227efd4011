// pc-traceevent: opens our traces with TraceEvent, the library PerfView is built on, and
// prints what PerfView would see, as plain "key value" lines for the shell tests.
//
//   pc-traceevent perfscript PATH [--threadtime] [--stacks]
//       PATH: a .trace.zip or a perf.data.txt, read by LinuxPerfScriptStackSource (what
//       PerfView's GUI opens for a trace.zip).  See PerfScript.cs for the lines printed.
//   pc-traceevent nettrace FILE.nettrace
//       the file read by EventPipeEventSource: event counts (see NetTrace.cs).
//   pc-traceevent tracelog FILE.nettrace [--threadtime] [--stacks] [--runtime] [--sampleprofiler]
//       a .nettrace through TraceLog, as PerfView opens one: its CPU and Thread Time views
//       (and the view of an EventPipe trace's SampleProfiler samples) and event counts.  See
//       TraceLogCmd.cs.
//   pc-traceevent perfview FILE.nettrace
//       PerfView's .NET views of the file: stacks of samples, allocations, exceptions; GC
//       and JIT statistics from TraceEvent's analysis.  See PerfViewCmd.cs.
//   pc-traceevent convert FILE.nettrace
//       TraceLog's conversion of the file and a walk of its events, timed (ConvertCmd.cs).
//
// Each reader lives in a file of its own, registered in the table below.  Any exception
// the reader throws is printed as "exception <type>: <message>" and exits 3, so a test can
// tell "PerfView cannot open this" from a harness bug (exit 2: usage).
using System;
using System.Collections.Generic;

namespace PcTraceEvent
{
	public static class Program
	{
		static readonly Dictionary<string, Func<string[], int>> Commands = new Dictionary<string, Func<string[], int>>
		{
			["perfscript"] = PerfScript.Run,
			["nettrace"] = NetTrace.Run,
			["tracelog"] = TraceLogCmd.Run,
			["perfview"] = PerfViewCmd.Run,
			["convert"] = ConvertCmd.Run,
		};

		public static int Main(string[] args)
		{
			if (args.Length == 0 || !Commands.TryGetValue(args[0], out var cmd))
			{
				Console.Error.WriteLine("usage: pc-traceevent {" + string.Join("|", Commands.Keys) + "} ARGS...");
				return 2;
			}
			try
			{
				return cmd(args[1..]);
			}
			catch (Exception e)
			{
				Console.WriteLine($"exception {e.GetType().Name}: {e.Message.Replace('\n', ' ')}");
				Console.Error.WriteLine(e);
				return 3;
			}
		}
	}
}
