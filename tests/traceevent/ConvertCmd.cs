// convert: TraceLog.CreateFromEventPipeDataFile on a .nettrace (the conversion PerfView makes
// when it opens one), then a walk over every event and its stack, timed: the side of
// bench/view_nettrace.sh that is PerfView's.  Prints "events N", "convert_ms M", "walk_ms M".
using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace PcTraceEvent
{
	public static class ConvertCmd
	{
		public static int Run(string[] args)
		{
			if (args.Length != 1)
			{
				Console.Error.WriteLine("usage: pc-traceevent convert FILE.nettrace");
				return 2;
			}
			string etlx = Path.Combine(Path.GetTempPath(), "pc-convert-" + Environment.ProcessId + ".etlx");
			var options = new TraceLogOptions { ConversionLog = TextWriter.Null, ShouldResolveSymbols = _ => false };
			try
			{
				var sw = Stopwatch.StartNew();
				TraceLog.CreateFromEventPipeDataFile(args[0], etlx, options);
				double convert = sw.Elapsed.TotalMilliseconds;
				sw.Restart();
				long n = 0, frames = 0;
				using (var log = new TraceLog(etlx))
					foreach (var e in log.Events)
					{
						n++;
						for (var s = e.CallStack(); s != null; s = s.Caller)
							frames++;
					}
				Console.WriteLine($"events {n}");
				Console.WriteLine($"frames {frames}");
				Console.WriteLine("convert_ms " + convert.ToString("F0", CultureInfo.InvariantCulture));
				Console.WriteLine("walk_ms " + sw.Elapsed.TotalMilliseconds.ToString("F0", CultureInfo.InvariantCulture));
			}
			finally
			{
				File.Delete(etlx);
			}
			return 0;
		}
	}
}
